package bridge

import (
	"context"
	"io"
	"time"

	"github.com/plaios/plaios/internal/sandbox"
)

// Serve is `plaios mcp serve`: the pack the command names, loaded in the sandbox and served
// over MCP. Start opens and loads it; the command then lists the tools or runs the session.
type Serve struct {
	Target
	// Secrets are the --secret ID=ENV_VAR flags (ParseSecrets).
	Secrets []string
	// Offline keeps the network refused while tools run, not only while the pack loads.
	Offline bool
	// Timeout bounds loading; CallTimeout one tool call.
	Timeout, CallTimeout time.Duration
	// Sandbox is how the children are contained.
	Sandbox sandbox.Mode
	// Memory bounds a child's memory, its processes together, while the pack loads and while
	// it runs tools (0: sandbox.DefaultMemory); --memory sets it.
	Memory int64
	// Getenv reads the environment the secrets and configuration come from.
	Getenv func(string) string
	// Log, when set, receives what the children print (verbose).
	Log io.Writer
	// Opened, when set, is called once the pack is open and before any of its code runs (the
	// command warns there when the sandbox is off).
	Opened func(*Pack)
}

// Session is a started server and what it holds.
type Session struct {
	*Server
	Pack   *Pack
	loader *Loader
}

// Start opens the pack, prepares its loader and starts the server (the pack loads once, with
// the network refused, before the server answers).
func (s Serve) Start(ctx context.Context) (*Session, error) {
	secrets, err := ParseSecrets(s.Secrets)
	if err != nil {
		return nil, err
	}
	p, err := s.OpenRuntime()
	if err != nil {
		return nil, err
	}
	if s.Opened != nil {
		s.Opened(p)
	}
	l, err := NewLoader(ctx, &Loader{Pack: p, SecretEnv: secrets, Offline: s.Offline, Timeout: s.Timeout, Log: s.Log, Getenv: s.Getenv, Sandbox: s.Sandbox,
		Memory: s.Memory, MemoryFlag: "mcp serve's --memory"})
	if err != nil {
		return nil, loadFailure(err)
	}
	srv, err := NewServer(ctx, ServerOptions{Loader: l, Getenv: s.Getenv, Log: s.Log, CallTimeout: s.CallTimeout})
	if err != nil {
		l.Close()
		return nil, loadFailure(err)
	}
	return &Session{Server: srv, Pack: p, loader: l}, nil
}

// Close stops the server's child and removes the loader's folder.
func (s *Session) Close() {
	s.Server.Close()
	s.loader.Close()
}
