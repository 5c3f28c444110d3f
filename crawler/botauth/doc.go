// Package botauth gives the crawler a verifiable identity: every request a
// volunteer's crawler sends to a web site carries HTTP Message Signatures
// (RFC 9421) the way Web Bot Auth does (draft-meunier-web-bot-auth-
// architecture and draft-meunier-http-message-signatures-directory).
//
// A Signer adds three headers to an outgoing request:
//
//	Signature-Agent: sig1="https://manager.example"
//	Signature-Input: sig1=("@authority" "signature-agent";key="sig1");created=…;expires=…;keyid="…";alg="ed25519";tag="web-bot-auth"
//	Signature: sig1=:…:
//
// This is draft-ietf-webbotauth-httpsig-protocol's form: Signature-Agent is
// a Dictionary whose member keyed by the signature's label is covered with
// the key parameter (RFC 9421 §2.1.2). WithLegacyAgent sends the earlier
// bare String instead, for verifiers that know no other; Verify and Agent
// accept both.
//
// keyid is the RFC 7638 JWK SHA-256 thumbprint of the volunteer's Ed25519
// public key (Thumbprint). Signature-Agent names the origin of the
// operator's key directory, a JWKS served at DirectoryPath
// (Directory, ParseDirectory) that lists the keys the operator certified;
// a web site verifies a request by fetching that directory and looking up
// keyid in it. Verify does exactly that against a Directory already in
// hand, for our own tests and for operators.
//
// The key lives in a PEM (PKCS #8) file that LoadOrCreateKey reads, or
// creates with mode 0600 by an atomic rename.
//
// # Library
//
// The signature base and the Signature / Signature-Input fields are built
// and parsed by github.com/remitly-oss/httpsig-go, not by hand. It was
// chosen over github.com/yaronf/httpsign because it covers everything Web
// Bot Auth needs (Ed25519, the @authority derived component, header
// components, and the created, expires, nonce, keyid, alg and tag
// parameters, with Verify taking keys from a caller's KeyFetcher) while
// depending only on github.com/dunglas/httpsfv, which this module already
// used; httpsign pulls in two major versions of lestrrat-go/jwx and their
// dependencies. Its verifier reads the clock itself and offers no way to
// pass one in, so Verify turns its time checks off and checks created and
// expires against the caller's now.
//
// # Caveats
//
//   - httpsig-go reads a covered field whole, and has no key parameter:
//     Sign signs with the field set to the member's value, then sends the
//     dictionary, and Verify hands it the covered member's value the same
//     way, so the signature base is RFC 9421's.
//   - web-bot-auth 0.1.3, the architecture draft's reference verifier on
//     npm (the newest release), builds the base of "signature-agent";key=…
//     from the whole field, so it verifies only the legacy form; the RFC
//     9421 library http-message-signatures verifies the dictionary form
//     (webbotauth_test.go runs both).
//   - @authority is the request's Host; Sign first normalizes req.Host
//     (lower case, default port dropped) so the Host header the site sees
//     is the authority that was signed, and Verify normalizes the same way.
//   - A nonce (WithNonce) is the library's only scheme, 32 random bytes;
//     the architecture draft's reference signer uses 64. Verifiers do not
//     check its length, but one that keeps nonces to refuse replays sees
//     a shorter one. Without WithNonce, none is sent: the short validity
//     bounds replays instead.
//   - The directory the operator serves is not itself signed (the draft's
//     optional directory-response signature needs the keys' private
//     halves, which only the volunteers hold).
package botauth
