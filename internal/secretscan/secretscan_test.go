package secretscan

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestScan(t *testing.T) {
	gh := "ghp_" + strings.Repeat("a1B2", 9)
	npm := "npm_" + strings.Repeat("Z9y8", 9)
	cases := []struct {
		name, content string
		want          string // "" means not a secret
	}{
		{".env", "A=1", "an environment file"},
		{"config/.env.production", "", "an environment file"},
		{".env.example", "API_KEY=", ""},
		{".env.example", "TOKEN=" + gh, "a GitHub token on line 1"},
		{".npmrc", "registry=https://r.example\n//r.example/:_authToken=abc123\n", "an .npmrc with a written-out _authToken on line 2"},
		{".npmrc", "//r.example/:_authToken=${NPM_TOKEN}\n", ""},
		{".npmrc", "; //r/:_authToken=abc\n", ""},
		{"keys/server.pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n", "a private key on line 1"},
		{"certs/ca.pem", "-----BEGIN CERTIFICATE-----\n", ""},
		{"id_ed25519", "whatever", "an SSH private key"},
		{"dist/index.js", "const t = '" + npm + "';", "an npm access token on line 1"},
		{"dist/index.js", "\n\nconst k = 'AKIAABCDEFGHIJKLMNOP'", "an AWS access key id on line 3"},
		{"dist/index.js", "const ghp_name = 1; // ghp_short", ""},
		{"README.md", "Set NPM_TOKEN in your CI.", ""},
		{"img.png", "\x00\x01" + gh, ""},
		{"dist/cfg.json", `{"t":"github_pat_` + strings.Repeat("a_B", 21) + `"}`, "a GitHub fine-grained token on line 1"},
		{"dist/cfg.json", "x\nASIA0123456789ABCDEF\n", "an AWS access key id on line 2"},
		{"dist/x.js", "ghs_" + strings.Repeat("k", 36), "a GitHub token on line 1"},
	}
	for _, c := range cases {
		reason, found := Scan(c.name, []byte(c.content))
		if found != (c.want != "") || !strings.HasPrefix(reason, c.want) {
			t.Errorf("Scan(%q) = %q, %v; want %q", c.name, reason, found, c.want)
		}
	}
}

func FuzzScan(f *testing.F) {
	f.Add(".npmrc", []byte("//x/:_authToken=y"))
	f.Add("a.js", []byte("npm_"))
	for _, s := range []string{"ghs_" + strings.Repeat("x", 40), "github_pat_" + strings.Repeat("A_", 31), "ASIA0123456789ABCDEF", "-----BEGIN PGP PRIVATE KEY BLOCK-----"} {
		f.Add("dist/x.js", []byte(s))
	}
	f.Fuzz(func(t *testing.T, name string, content []byte) {
		reason, found := Scan(name, content)
		if found && reason == "" {
			t.Fatal("found without a reason")
		}
		for _, p := range tokenPatterns {
			if p.re().Match(content) && !containsAny(content, p.needles) {
				t.Fatalf("%s matches %q, which holds none of its needles %q", p.name, content, p.needles)
			}
		}
	})
}

// ScanReader finds a token anywhere in a text file, across the boundary of its windows, on
// the right line; in a binary file it looks only at the first MaxScan bytes.
func TestScanReaderStreams(t *testing.T) {
	token := "npm_" + strings.Repeat("a1", 18)
	for _, at := range []int{10, window - 20, window - 3, window + 7, 3*window + 100} {
		var b strings.Builder
		lines := 0
		for b.Len() < at {
			b.WriteString("0123456789\n")
			lines++
		}
		b.WriteString(token + "\n")
		b.WriteString(strings.Repeat("y", 3*overlap))
		reason, found, err := ScanReader("notes.txt", strings.NewReader(b.String()))
		want := fmt.Sprintf("an npm access token on line %d", lines+1)
		if err != nil || !found || reason != want {
			t.Errorf("token at %d: %q %v %v, want %q", at, reason, found, err, want)
		}
	}
	bin := make([]byte, MaxScan+window)
	copy(bin[MaxScan+10:], token)
	if reason, found, _ := ScanReader("blob.bin", bytes.NewReader(bin)); found {
		t.Errorf("a token past the start of a binary file was looked at: %s", reason)
	}
	if reason, found, _ := ScanReader(".env", strings.NewReader("A=1")); !found || !strings.Contains(reason, "environment file") {
		t.Errorf(".env: %q %v", reason, found)
	}
}

// One Scanner scans file after file with one window: a pack shipping thousands of small files
// costs a bounded amount of memory, not a megabyte a file (validate took 9 s, most of it
// collecting those windows, on @openclaw/discord's 6,000 bundled files), and nothing of one
// file is found in the next.
func TestScannerReusesItsWindow(t *testing.T) {
	var s Scanner
	token := "npm_" + strings.Repeat("a1", 18)
	big := strings.Repeat("0123456789\n", window/11) + token + "\n"
	if reason, found, err := s.ScanReader("big.js", strings.NewReader(big)); err != nil || !found || !strings.Contains(reason, "npm access token") {
		t.Fatalf("big.js: %q %v %v", reason, found, err)
	}
	if reason, found, err := s.ScanReader("small.js", strings.NewReader("export {};\n")); err != nil || found {
		t.Fatalf("small.js, scanned after a file holding a token: %q %v %v", reason, found, err)
	}
	if reason, found, _ := s.ScanReader("key.pem", strings.NewReader("-----BEGIN PRIVATE KEY-----\n")); !found || reason != "a private key on line 1" {
		t.Fatalf("key.pem: %q %v", reason, found)
	}
	const files = 200
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := strings.NewReader("")
	for i := 0; i < files; i++ {
		r.Reset("export const a = 1;\n")
		if _, found, err := s.ScanReader("index.js", r); err != nil || found {
			t.Fatalf("index.js: %v %v", found, err)
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > window {
		t.Errorf("scanning %d small files allocated %d bytes, want less than one window (%d)", files, got, window)
	}
}
