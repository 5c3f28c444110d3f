package botauth

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	sfv "github.com/dunglas/httpsfv"
	httpsig "github.com/remitly-oss/httpsig-go"
)

// Web Bot Auth constants.
const (
	// Tag is the tag parameter of every Web Bot Auth signature.
	Tag = "web-bot-auth"
	// Label is the signature's label in Signature and Signature-Input.
	Label = "sig1"
	// Algorithm is the alg parameter of our signatures.
	Algorithm = "ed25519"
	// AgentHeader names the operator's key directory.
	AgentHeader = "Signature-Agent"
	// AgentMember is the Signature-Agent dictionary member that names the
	// directory, and the key parameter that covers it.
	AgentMember = Label
	// DefaultValidity is how long a signature stays valid when NewSigner
	// is given no validity: long enough for a slow request, short enough
	// that a recorded one is of little use.
	DefaultValidity = 60 * time.Second
)

// Signer signs outgoing requests with one Ed25519 key. It is safe for
// concurrent use.
type Signer struct {
	keyid string
	// agent is the directory's origin as a Structured Field String, the
	// value that is signed; "" = none. header is the Signature-Agent
	// field sent: the dictionary {AgentMember: agent}, or agent itself in
	// the legacy form.
	agent, header string
	signer        *httpsig.Signer
}

// SignerOption changes what NewSigner's Signer sends.
type SignerOption func(*signerOptions)

type signerOptions struct {
	nonce, legacy bool
}

// WithNonce adds a random nonce to every signature, for verifiers that
// want one (see the package caveats on its length).
func WithNonce() SignerOption { return func(o *signerOptions) { o.nonce = true } }

// WithLegacyAgent sends Signature-Agent in the legacy form, the
// directory's origin as a bare String covered as "signature-agent", for
// verifiers that know no other (see the package caveats).
func WithLegacyAgent() SignerOption { return func(o *signerOptions) { o.legacy = true } }

// NewSigner returns a Signer for key whose signatures are valid for validity
// (DefaultValidity when zero or negative) and name agent, the origin of the
// operator's key directory ("https://manager.example"), in a
// Signature-Agent header. An empty agent sends none: the site must then
// know the directory already.
func NewSigner(key ed25519.PrivateKey, agent string, validity time.Duration, opts ...SignerOption) (*Signer, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("new request signer: key has %d bytes, want an Ed25519 private key", len(key))
	}
	var o signerOptions
	for _, opt := range opts {
		opt(&o)
	}
	if validity <= 0 {
		validity = DefaultValidity
	}
	s := &Signer{keyid: Thumbprint(key.Public().(ed25519.PublicKey))}
	fields := []httpsig.SignedField{{Name: "@authority", Parameters: map[string]any{}}}
	if agent != "" {
		if err := checkAgent(agent); err != nil {
			return nil, fmt.Errorf("new request signer: Signature-Agent %q: %w", agent, err)
		}
		v, err := sfv.Marshal(sfv.NewItem(agent))
		if err != nil {
			return nil, fmt.Errorf("new request signer: Signature-Agent %q: %w", agent, err)
		}
		s.agent, s.header = v, v
		covered := httpsig.SignedField{Name: "signature-agent", Parameters: map[string]any{}}
		if !o.legacy {
			s.header = AgentMember + "=" + v
			covered.Parameters["key"] = AgentMember
		}
		fields = append(fields, covered)
	}
	meta := []httpsig.Metadata{httpsig.MetaCreated, httpsig.MetaExpires, httpsig.MetaKeyID, httpsig.MetaAlgorithm}
	if o.nonce {
		meta = append(meta, httpsig.MetaNonce)
	}
	meta = append(meta, httpsig.MetaTag)
	signer, err := httpsig.NewSigner(httpsig.SigningProfile{
		Algorithm:       httpsig.Algo_ED25519,
		Fields:          fields,
		Metadata:        meta,
		Label:           Label,
		ExpiresDuration: validity,
		Nonce:           httpsig.NonceRandom32,
	}, httpsig.SigningKey{Key: key, MetaKeyID: s.keyid, MetaTag: Tag})
	if err != nil {
		return nil, fmt.Errorf("new request signer: %w", err)
	}
	s.signer = signer
	return s, nil
}

// checkAgent accepts an absolute http(s) URL with a host and nothing
// secret or ambiguous in it, nor anything a String would escape (simple
// verifiers strip the quotes and take the rest as is).
func checkAgent(agent string) error {
	if strings.ContainsAny(agent, "\"\\ ") {
		return errors.New("a quote, backslash or space has no place in it")
	}
	u, err := url.Parse(agent)
	if err != nil {
		return err
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return errors.New("not an http(s) URL")
	}
	if u.Host == "" {
		return errors.New("no host")
	}
	if u.User != nil || u.Fragment != "" {
		return errors.New("a user name or fragment has no place in it")
	}
	return nil
}

// KeyID returns the keyid the Signer's signatures carry: its public key's
// Thumbprint.
func (s *Signer) KeyID() string { return s.keyid }

// Sign adds Signature-Agent (when the Signer has one), Signature-Input and
// Signature to req, replacing any signature it carried, so it is called on
// every request just before it is sent, redirect hops included. It sets
// req.Host to the normalized authority it signs (lower case, without the
// scheme's default port), which is the Host header sent.
func (s *Signer) Sign(req *http.Request) error {
	if req == nil || req.URL == nil {
		return errors.New("web bot auth: no request URL")
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	if host == "" {
		return errors.New("web bot auth: no host to sign")
	}
	req.Host = normalizeAuthority(host, req.URL.Scheme)
	req.Header.Del("Signature")
	req.Header.Del("Signature-Input")
	req.Header.Del(AgentHeader)
	if s.agent != "" {
		// The signature covers the member's value (RFC 9421 §2.1.2), which
		// the library reads from the field: sign with the field set to the
		// value, then send the dictionary.
		req.Header.Set(AgentHeader, s.agent)
	}
	if err := s.signer.Sign(req); err != nil {
		return fmt.Errorf("web bot auth signature: %w", err)
	}
	if s.agent != "" {
		req.Header.Set(AgentHeader, s.header)
	}
	return nil
}

// normalizeAuthority lower-cases host[:port] and drops the port when it is
// the scheme's default, as RFC 9421 §2.2.3 wants of @authority.
func normalizeAuthority(hostport, scheme string) string {
	hostport = strings.ToLower(hostport)
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport // no port
	}
	if (port == "443" && scheme == "https") || (port == "80" && scheme == "http") {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	return hostport
}
