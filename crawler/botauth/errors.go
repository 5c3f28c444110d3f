package botauth

import "errors"

// Sentinel errors callers branch on.
var (
	// ErrNoSignature: the request carries no Web Bot Auth signature (no
	// Signature-Input member tagged "web-bot-auth").
	ErrNoSignature = errors.New("no web-bot-auth signature")
	// ErrUnknownKey: the signature's keyid is not in the key directory,
	// because the key was never certified or was withdrawn.
	ErrUnknownKey = errors.New("key not in the directory")
	// ErrExpired: the signature's expires time has passed.
	ErrExpired = errors.New("signature expired")
	// ErrNotYetValid: the signature was created in the future.
	ErrNotYetValid = errors.New("signature created in the future")
	// ErrInvalidSignature: the signature does not verify, or does not
	// cover or carry what Web Bot Auth requires.
	ErrInvalidSignature = errors.New("invalid signature")
	// ErrBadDirectory: a key directory is not a JWKS of valid keys.
	ErrBadDirectory = errors.New("bad key directory")
)
