package bucket

import (
	"errors"
	"testing"
)

func TestFromEnv(t *testing.T) {
	creds := map[string]string{"AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK"}
	with := func(extra map[string]string) func(string) string {
		return func(k string) string {
			if v, ok := extra[k]; ok {
				return v
			}
			return creds[k]
		}
	}
	tests := []struct {
		name    string
		env     map[string]string
		want    Config
		wantErr error
	}{
		{name: "defaults", env: map[string]string{},
			want: Config{Endpoint: "s3.amazonaws.com", Secure: true, Region: DefaultRegion}},
		{name: "S3 endpoint wins", env: map[string]string{"AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9000", "AWS_ENDPOINT_URL": "https://other.example"},
			want: Config{Endpoint: "127.0.0.1:9000", Region: DefaultRegion}},
		{name: "general endpoint", env: map[string]string{"AWS_ENDPOINT_URL": "https://s3.example.net/"},
			want: Config{Endpoint: "s3.example.net", Secure: true, Region: DefaultRegion}},
		{name: "region", env: map[string]string{"AWS_REGION": "eu-west-3", "AWS_DEFAULT_REGION": "us-west-2"},
			want: Config{Endpoint: "s3.amazonaws.com", Secure: true, Region: "eu-west-3"}},
		{name: "default region variable", env: map[string]string{"AWS_DEFAULT_REGION": "us-west-2"},
			want: Config{Endpoint: "s3.amazonaws.com", Secure: true, Region: "us-west-2"}},
		{name: "session token", env: map[string]string{"AWS_SESSION_TOKEN": "tok"},
			want: Config{Endpoint: "s3.amazonaws.com", Secure: true, Region: DefaultRegion, SessionToken: "tok"}},
		{name: "no access key", env: map[string]string{"AWS_ACCESS_KEY_ID": ""}, wantErr: ErrNoCredentials},
		{name: "no secret", env: map[string]string{"AWS_SECRET_ACCESS_KEY": ""}, wantErr: ErrNoCredentials},
		{name: "bad endpoint", env: map[string]string{"AWS_ENDPOINT_URL": "ftp://x"}, wantErr: ErrInvalidURL},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromEnv("s3://crawl/p", with(tc.env))
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("FromEnv = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Location = Location{Bucket: "crawl", Prefix: "p"}
			tc.want.AccessKey, tc.want.SecretKey = "AK", "SK"
			if got != tc.want {
				t.Fatalf("FromEnv = %+v, want %+v", got, tc.want)
			}
		})
	}
	if _, err := FromEnv("s3://X", with(nil)); !errors.Is(err, ErrInvalidURL) {
		t.Errorf("bad store URL: %v", err)
	}
}

func TestParseEndpoint(t *testing.T) {
	tests := []struct {
		in     string
		host   string
		secure bool
		bad    bool
	}{
		{in: "https://s3.example.net", host: "s3.example.net", secure: true},
		{in: "http://127.0.0.1:9000", host: "127.0.0.1:9000"},
		{in: "http://[::1]:9000/", host: "[::1]:9000"},
		{in: "HTTPS://S3.Example.net:443", host: "S3.Example.net:443", secure: true},
		{in: "s3.example.net", bad: true},
		{in: "ftp://s3.example.net", bad: true},
		{in: "https://", bad: true},
		{in: "https://:9000", bad: true},
		{in: "https://host:", bad: true},
		{in: "https://host:0", bad: true},
		{in: "https://host:99999", bad: true},
		{in: "https://user:pw@host", bad: true},
		{in: "https://host/bucket", bad: true},
		{in: "https://host/?x=1", bad: true},
		{in: "https://host/#f", bad: true},
		{in: "https://ho st", bad: true},
	}
	for _, tc := range tests {
		host, secure, err := ParseEndpoint(tc.in)
		if tc.bad {
			if !errors.Is(err, ErrInvalidURL) {
				t.Errorf("ParseEndpoint(%q) = %q, %v, %v; want ErrInvalidURL", tc.in, host, secure, err)
			}
			continue
		}
		if err != nil || host != tc.host || secure != tc.secure {
			t.Errorf("ParseEndpoint(%q) = %q, %v, %v; want %q, %v", tc.in, host, secure, err, tc.host, tc.secure)
		}
	}
}
