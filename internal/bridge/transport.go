package bridge

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport is MCP over a reader and a writer (stdin and stdout), newline-delimited, that
// survives malformed input: a line that is not JSON is answered with JSON-RPC's parse error
// (-32700) and one that is not a JSON-RPC message with invalid request (-32600), both with a
// null id, and the session goes on. The MCP library alone would end the session on such a
// line.
func Transport(in io.Reader, out io.Writer) mcp.Transport {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go filterLines(in, pw, w)
	return &mcp.IOTransport{Reader: pr, Writer: w}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

const maxLine = 64 << 20

func filterLines(in io.Reader, pw *io.PipeWriter, out io.Writer) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long line: gather it whole.
			buf := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull && len(buf) < maxLine {
				line, err = br.ReadSlice('\n')
				buf = append(buf, line...)
			}
			line = buf
		}
		if len(line) > 0 {
			switch fault := lineFault(line); fault {
			case 0:
				if _, werr := pw.Write(line); werr != nil {
					return
				}
				if line[len(line)-1] != '\n' {
					_, _ = pw.Write([]byte{'\n'})
				}
			default:
				msg := "Parse error"
				if fault == -32600 {
					msg = "Invalid Request"
				}
				resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": fault, "message": msg}})
				_, _ = out.Write(append(resp, '\n'))
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			_ = pw.CloseWithError(io.EOF)
			return
		}
	}
}

// lineFault is 0 for a line the MCP library can read (blank lines included), else the
// JSON-RPC error code to answer it with.
func lineFault(line []byte) int {
	trimmed := trimSpace(line)
	if len(trimmed) == 0 {
		return 0
	}
	if !json.Valid(trimmed) {
		return -32700
	}
	switch trimmed[0] {
	case '[':
		return 0 // a batch: the library answers it
	case '{':
		var head struct {
			JSONRPC string          `json:"jsonrpc"`
			Method  *string         `json:"method"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if json.Unmarshal(trimmed, &head) != nil || head.JSONRPC != "2.0" {
			return -32600
		}
		if head.Method == nil && len(head.ID) == 0 {
			return -32600
		}
		if head.Method == nil && len(head.Result) == 0 && len(head.Error) == 0 {
			return -32600
		}
		return 0
	}
	return -32600
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}
