package botauth

import (
	"crypto/ed25519"
	"encoding/base64"
	"testing"
)

func TestThumbprint(t *testing.T) {
	cases := []struct {
		name, x, want string
	}{
		// RFC 8037 Appendix A.3: the thumbprint of the Appendix A.2 key.
		{"RFC 8037 A.3", "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"},
		// RFC 9421 B.1.4's test-key-ed25519, whose keyid the Web Bot
		// Auth examples use.
		{"RFC 9421 B.1.4", "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs", "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pub, err := base64.RawURLEncoding.DecodeString(c.x)
			if err != nil {
				t.Fatal(err)
			}
			if got := Thumbprint(ed25519.PublicKey(pub)); got != c.want {
				t.Errorf("Thumbprint = %s, want %s", got, c.want)
			}
			if got := NewJWK(pub).X; got != c.x {
				t.Errorf("NewJWK x = %s, want %s", got, c.x)
			}
		})
	}
}
