package sandbox

import "testing"

// TestAttemptLoopback: what guard's `loopback: true` excuses is an attempt whose host is on
// the loopback, whatever form the hooks recorded it in; nothing else.
func TestAttemptLoopback(t *testing.T) {
	for _, c := range []struct {
		what, target string
		loopback     bool
	}{
		{"connect", "127.0.0.1:8000", true},
		{"connect", "127.8.9.10:80", true},
		{"connect", "[::1]:11434", true},
		{"tls", "localhost:443", true},
		{"fetch", "http://localhost:1234/v1/models", true},
		{"http", "GET http://127.0.0.1:8000/v1/models", true},
		{"https", "POST https://localhost/v1/chat", true},
		{"http", "GET http://192.168.1.5:8000/v1/models", false},
		{"https", "https request", false},
		{"websocket", "ws://[::1]:9000/socket", true},
		{"dns lookup", "localhost", true},
		{"udp", "127.0.0.1:5353", true},
		{"connect", "10.0.0.7:8000", false},
		{"fetch", "https://api.example.com/v1", false},
		{"fetch", "http://localhost.example.com/", false},
		{"dns lookup", "updates.example.com", false},
		{"connect", "0.0.0.0:8000", false},
		{"unix socket", "/run/docker.sock", false},
		{"spawn", "curl http://127.0.0.1:8000", false},
	} {
		if got := (Attempt{What: c.what, Target: c.target}).Loopback(); got != c.loopback {
			t.Errorf("%s %s: loopback %v, want %v", c.what, c.target, got, c.loopback)
		}
	}
}
