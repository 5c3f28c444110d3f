package botauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sfv "github.com/dunglas/httpsfv"
	httpsig "github.com/remitly-oss/httpsig-go"
)

// maxClockSkew is how far in the future a signature's created time may be:
// the signer's clock may run a little ahead of ours.
const maxClockSkew = time.Minute

// Verify checks req's Web Bot Auth signature against the keys in dir at
// time now: the Signature-Input member tagged "web-bot-auth" must cover
// @authority (and signature-agent when the request names one), carry
// created, expires and keyid, name a key in dir, be an Ed25519 signature
// that verifies, not have expired and not be created more than a minute
// after now. It works on a server's incoming request (Host is the
// authority) and on a client's outgoing one after Sign.
//
// Errors wrap ErrNoSignature, ErrUnknownKey (not certified, or withdrawn),
// ErrExpired, ErrNotYetValid or ErrInvalidSignature.
func Verify(req *http.Request, dir Directory, now time.Time) error {
	label, input, err := webBotAuthInput(req.Header)
	if err != nil {
		return fmt.Errorf("verify request signature: %w", err)
	}
	agent, err := coveredAgent(req.Header, input)
	if err != nil {
		return fmt.Errorf("verify request signature: %w", err)
	}
	// The library reads @authority from Host as is; verify a copy whose
	// Host is normalized as Sign normalizes it.
	r := req.Clone(req.Context())
	scheme := "http"
	if req.TLS != nil || req.URL.Scheme == "https" {
		scheme = "https"
	}
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	r.Host = normalizeAuthority(host, scheme)
	fields := []string{"@authority"}
	if agent != "" {
		// The library reads a covered field whole: give it the value the
		// signature covers, which is the member's in the dictionary form.
		r.Header.Set(AgentHeader, agent)
		fields = append(fields, "signature-agent")
	}
	res, err := httpsig.Verify(r, directoryKeys(dir), httpsig.VerifyProfile{
		SignatureLabel:    label,
		RequiredFields:    httpsig.Fields(fields...),
		RequiredMetadata:  []httpsig.Metadata{httpsig.MetaCreated, httpsig.MetaExpires, httpsig.MetaKeyID, httpsig.MetaTag},
		AllowedAlgorithms: []httpsig.Algorithm{httpsig.Algo_ED25519},
		// The library checks times against its own clock; they are
		// checked below against now.
		DisableTimeEnforcement: true,
	})
	// A Content-Digest makes the library read the body into a buffer it
	// hands the copy; pass that on so the caller can still read it.
	req.Body = r.Body
	if err != nil {
		err = explain(err)
		if errors.Is(err, ErrUnknownKey) {
			return fmt.Errorf("verify request signature: %w", err)
		}
		return fmt.Errorf("verify request signature: %w: %w", ErrInvalidSignature, err)
	}
	if alg, err := res.Alg(); err == nil && alg != Algorithm {
		return fmt.Errorf("verify request signature: %w: alg %q, want %q", ErrInvalidSignature, alg, Algorithm)
	}
	created, err := res.Created()
	if err != nil {
		return fmt.Errorf("verify request signature: %w: created: %w", ErrInvalidSignature, err)
	}
	expires, err := res.Expires()
	if err != nil {
		return fmt.Errorf("verify request signature: %w: expires: %w", ErrInvalidSignature, err)
	}
	if expires < created {
		return fmt.Errorf("verify request signature: %w: expires %d before created %d", ErrInvalidSignature, expires, created)
	}
	if exp := time.Unix(int64(expires), 0); now.After(exp) {
		return fmt.Errorf("verify request signature: %w at %s (now %s)", ErrExpired, exp.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	if c := time.Unix(int64(created), 0); c.After(now.Add(maxClockSkew)) {
		return fmt.Errorf("verify request signature: %w: created %s (now %s)", ErrNotYetValid, c.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return nil
}

// explain returns the library's error with the text of its cause, which
// its Error method leaves out.
func explain(err error) error {
	var se *httpsig.SignatureError
	if errors.As(err, &se) && se.Cause != nil {
		return fmt.Errorf("%s: %w", se.Message, se.Cause)
	}
	return err
}

// webBotAuthInput returns the label and the component list of the first
// Signature-Input member tagged "web-bot-auth".
func webBotAuthInput(h http.Header) (string, sfv.InnerList, error) {
	lines := h.Values("Signature-Input")
	if len(lines) == 0 {
		return "", sfv.InnerList{}, fmt.Errorf("%w: no Signature-Input header", ErrNoSignature)
	}
	dict, err := sfv.UnmarshalDictionary(lines)
	if err != nil {
		return "", sfv.InnerList{}, fmt.Errorf("%w: Signature-Input: %w", ErrInvalidSignature, err)
	}
	for _, name := range dict.Names() {
		m, _ := dict.Get(name)
		il, ok := m.(sfv.InnerList)
		if !ok {
			continue
		}
		if tag, ok := il.Params.Get("tag"); ok && tag == Tag {
			return name, il, nil
		}
	}
	return "", sfv.InnerList{}, fmt.Errorf("%w: no Signature-Input member has tag %q", ErrNoSignature, Tag)
}

// coveredAgent returns the serialized Signature-Agent value that the
// signature input covers: the member its key parameter names in the
// dictionary form, the whole field in the legacy form, "" when the
// request has no Signature-Agent. A field the signature does not cover,
// or a member that is missing or not a String, is an ErrInvalidSignature.
func coveredAgent(h http.Header, input sfv.InnerList) (string, error) {
	lines := h.Values(AgentHeader)
	if len(lines) == 0 {
		return "", nil
	}
	for _, c := range input.Items {
		if name, _ := c.Value.(string); name != "signature-agent" {
			continue
		}
		k, keyed := c.Params.Get("key")
		if !keyed {
			return strings.Join(lines, ", "), nil
		}
		key, _ := k.(string)
		dict, err := sfv.UnmarshalDictionary(lines)
		if err != nil {
			return "", fmt.Errorf("%w: Signature-Agent is not a dictionary: %w", ErrInvalidSignature, err)
		}
		m, ok := dict.Get(key)
		if !ok {
			return "", fmt.Errorf("%w: Signature-Agent has no member %q", ErrInvalidSignature, key)
		}
		item, ok := m.(sfv.Item)
		if _, isString := item.Value.(string); !ok || !isString {
			return "", fmt.Errorf("%w: Signature-Agent member %q is not a String", ErrInvalidSignature, key)
		}
		v, err := sfv.Marshal(item)
		if err != nil {
			return "", fmt.Errorf("%w: Signature-Agent member %q: %w", ErrInvalidSignature, key, err)
		}
		return v, nil
	}
	return "", fmt.Errorf("%w: the signature does not cover Signature-Agent", ErrInvalidSignature)
}

// Agent returns the origin of the key directory that req's Web Bot Auth
// signature names: the Signature-Agent member its input covers (or the
// whole field in the legacy form), "" when it names none. It checks no
// signature; a site fetches the directory from this origin and then
// calls Verify.
func Agent(h http.Header) (string, error) {
	_, input, err := webBotAuthInput(h)
	if err != nil {
		return "", err
	}
	v, err := coveredAgent(h, input)
	if err != nil || v == "" {
		return "", err
	}
	item, err := sfv.UnmarshalItem([]string{v})
	if err != nil {
		return "", fmt.Errorf("%w: Signature-Agent: %w", ErrInvalidSignature, err)
	}
	origin, ok := item.Value.(string)
	if !ok {
		return "", fmt.Errorf("%w: Signature-Agent is not a String", ErrInvalidSignature)
	}
	return origin, nil
}

// directoryKeys looks keys up by keyid in a Directory for the library's
// verifier.
type directoryKeys Directory

var _ httpsig.KeyFetcher = directoryKeys{}

// FetchByKeyID returns the directory's key whose thumbprint is keyID.
func (d directoryKeys) FetchByKeyID(_ context.Context, _ http.Header, keyID string) (httpsig.KeySpecer, error) {
	pub, ok := Directory(d).Lookup(keyID)
	if !ok {
		return nil, ErrUnknownKey // the library's error names the keyid
	}
	return httpsig.KeySpec{KeyID: keyID, Algo: httpsig.Algo_ED25519, PubKey: pub}, nil
}

// Fetch refuses a signature without keyid: Web Bot Auth requires one.
func (d directoryKeys) Fetch(context.Context, http.Header, httpsig.MetadataProvider) (httpsig.KeySpecer, error) {
	return nil, fmt.Errorf("%w: no keyid", ErrInvalidSignature)
}
