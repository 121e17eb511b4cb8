package bridge

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/schema"
)

// Server is `plaios mcp serve`: an MCP server whose tools are a pack's, run in a long-lived
// bridge child that is started again when it dies.
type Server struct {
	loader      *Loader
	rt          pack.Runtime
	tools       []*serverTool
	byName      map[string]*serverTool
	mcp         *mcp.Server
	notes       []string
	redact      *redactor
	getenv      func(string) string
	mu          sync.Mutex
	child       *Child
	closing     bool
	callTimeout time.Duration
}

type serverTool struct {
	Tool
	// The parsed schemas stay referenced: the registry knows a compiled schema by the
	// identity of the value it was given, as Ajv does.
	docs      []*jsonpos.Value
	in        *schema.Schema
	inErr     error
	out       *schema.Schema
	outErr    error
	structure bool // the output schema is advertised: results carry structuredContent
}

// ServerOptions configure NewServer.
type ServerOptions struct {
	// Loader starts the children; NewServer sets its Serve and OnSecret.
	Loader *Loader
	// Version is plaios's, for the server's implementation info.
	Version string
	// Getenv reads the values of the secrets to redact (nil: os.Getenv).
	Getenv func(string) string
	// Log, when set, receives the MCP library's log (verbose).
	Log io.Writer
	// CallTimeout ends a tool call that has not answered in time (default 60s): the client
	// gets an error and the pack's child is started again.
	CallTimeout time.Duration
}

// NewServer loads the pack in its first child and prepares every tool: names checked (MCP's
// rule; a name MCP rejects is refused), input schemas compiled once, as one Ajv instance of the
// AgentOS executor would, output schemas advertised when they describe an object.
func NewServer(ctx context.Context, opts ServerOptions) (*Server, error) {
	l := opts.Loader
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	s := &Server{loader: l, rt: l.Pack.Runtime(), byName: map[string]*serverTool{}, redact: &redactor{}, getenv: getenv, callTimeout: opts.CallTimeout}
	if s.callTimeout <= 0 {
		s.callTimeout = 60 * time.Second
	}
	l.Serve = true
	l.OnSecret = func(env string) { s.redact.add(getenv(env)) }
	l.Redact = s.redact.text
	for _, env := range l.SecretEnvNames() {
		s.redact.add(getenv(env))
	}
	child, res, err := l.Start(ctx)
	if err != nil {
		var le *LoadError
		if errors.As(err, &le) {
			reason := s.redact.text(le.Reason)
			// A factory that needs its secrets to construct (a channel's host and token)
			// throws without them: say which are not set, and how to give them.
			if unset := l.unsetSecrets(); len(unset) > 0 {
				reason = fmt.Sprintf("%s; the secrets its manifest requires are not set: %s (set them, or name other variables with --secret id=ENV_VAR)", strings.TrimRight(reason, ". "), strings.Join(unset, ", "))
			}
			return nil, &LoadError{Reason: reason}
		}
		return nil, err
	}
	s.notes = append(s.notes, l.Notes...)
	for _, sk := range res.Skipped {
		s.notes = append(s.notes, fmt.Sprintf("tool %s is left out: its secret %s is not set (set %s)", sk.Tool, strings.Join(sk.Secrets, ", "), strings.Join(sk.Env, ", ")))
	}
	tools := toolsOf(res)
	if len(tools) == 0 {
		s.notes = append(s.notes, NoTool(l.Pack.Name(), res))
	}
	// Every string that goes out is redacted, the tools' names, descriptions and schemas too.
	for i := range tools {
		t := &tools[i]
		t.Name, t.Title, t.Description = s.redact.text(t.Name), s.redact.text(t.Title), s.redact.text(t.Description)
	}
	if err := CheckNames(tools); err != nil {
		child.Close()
		return nil, &LoadError{Reason: err.Error()}
	}
	reg := schema.NewRegistry()
	impl := &mcp.Implementation{Name: l.Pack.Name(), Title: l.Pack.Name() + " (plaios mcp serve)", Version: l.Pack.Pack.Version()}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if opts.Log != nil {
		logger = slog.New(slog.NewTextHandler(redactWriter{opts.Log, s.redact}, nil))
	}
	s.mcp = mcp.NewServer(impl, &mcp.ServerOptions{Logger: logger})
	for _, t := range tools {
		st := &serverTool{Tool: t}
		advertised, err := objectSchema(t)
		if err != nil {
			child.Close()
			return nil, &LoadError{Reason: err.Error()}
		}
		if len(t.InputSchema) > 0 {
			if v, perr := jsonpos.Parse(t.InputSchema); perr == nil {
				st.docs = append(st.docs, v)
				st.in, st.inErr = reg.Compile(v)
			}
			if st.inErr != nil {
				s.notes = append(s.notes, inputNote(s.rt, t.Name, st.inErr))
			}
		}
		var outSchema any
		if len(t.OutputSchema) > 0 {
			if v, perr := jsonpos.Parse(t.OutputSchema); perr == nil {
				st.docs = append(st.docs, v)
				st.out, st.outErr = reg.Compile(v)
				if st.outErr == nil && v.Kind == jsonpos.Object && v.Get("type").Text() == "object" {
					st.structure = true
					outSchema = t.OutputSchema
				}
			}
		}
		mt := &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: s.redact.json(advertised)}
		if outSchema != nil {
			mt.OutputSchema = s.redact.json(t.OutputSchema)
		}
		if t.ReadOnly != nil {
			mt.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: *t.ReadOnly}
			if *t.ReadOnly {
				no := false
				mt.Annotations.DestructiveHint = &no
			}
		}
		s.tools = append(s.tools, st)
		s.byName[t.Name] = st
		name := t.Name
		s.mcp.AddTool(mt, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return s.call(ctx, s.byName[name], req.Params.Arguments)
		})
	}
	s.child = child
	for i, n := range s.notes {
		s.notes[i] = s.redact.text(n)
	}
	return s, nil
}

func inputNote(rt pack.Runtime, name string, err error) string {
	if rt == pack.AgentOS {
		return fmt.Sprintf("tool %s: its input schema does not compile, so every call fails as in AgentOS: %v", name, err)
	}
	return fmt.Sprintf("tool %s: its input schema does not compile under Ajv's strict mode (%v); its arguments go to the tool unchecked", name, err)
}

// objectSchema is the input schema MCP lists for a tool: the tool's own, with "type":
// "object" added when it names no type; none at all is {"type":"object"}.
func objectSchema(t Tool) (json.RawMessage, error) {
	if len(t.InputSchema) == 0 {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	v, err := jsonpos.Parse(t.InputSchema)
	if err != nil || v.Kind != jsonpos.Object {
		return nil, fmt.Errorf("tool %q has an input schema that is not a JSON object; MCP tools take an object schema", t.Name)
	}
	typ := v.Get("type")
	switch {
	case typ == nil:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(t.InputSchema, &m); err != nil {
			return nil, err
		}
		m["type"] = json.RawMessage(`"object"`)
		return json.Marshal(m)
	case typ.Text() == "object":
		return t.InputSchema, nil
	}
	return nil, fmt.Errorf("tool %q has an input schema of type %s; MCP tools take an object of arguments, so give it \"type\": \"object\"", t.Name, string(t.InputSchema[typ.Pos.Offset:typ.End]))
}

// Tools lists the tools served.
func (s *Server) Tools() []Tool {
	out := make([]Tool, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.Tool
	}
	return out
}

// Notes are what the user should know: tools left out, schemas that do not compile.
func (s *Server) Notes() []string { return s.notes }

// Run serves MCP over t until the client goes away or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.mcp.Run(ctx, t)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// Close stops the current child.
func (s *Server) Close() {
	s.mu.Lock()
	s.closing = true
	c := s.child
	s.child = nil
	s.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// current returns the running child, starting a new one when the last has died.
func (s *Server) current(ctx context.Context) (*Child, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, errors.New("the server is shutting down")
	}
	if s.child != nil && s.child.Alive() {
		return s.child, nil
	}
	c, _, err := s.loader.Start(ctx)
	if err != nil {
		return nil, fmt.Errorf("the pack did not load again after its node process ended: %v", err)
	}
	s.child = c
	return c, nil
}

// restart ends a child that stopped answering and starts the next one at once, so that the
// next call finds the pack loaded.
func (s *Server) restart(c *Child) {
	s.mu.Lock()
	if s.child == c {
		s.child = nil
	}
	s.mu.Unlock()
	c.Kill()
	go func() {
		<-c.Done()
		_, _ = s.current(context.Background())
	}()
}

func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}
}

func (s *Server) call(ctx context.Context, t *serverTool, raw json.RawMessage) (*mcp.CallToolResult, error) {
	res, err := s.run(ctx, t, raw)
	if err != nil {
		return nil, err
	}
	s.redact.result(res)
	return res, nil
}

func (s *Server) run(ctx context.Context, t *serverTool, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var args any = map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		v, err := jsonpos.Parse(raw)
		if err != nil {
			return toolError(fmt.Sprintf("the arguments of tool '%s' are not JSON: %v", t.Name, err)), nil
		}
		args = v
	}
	prepared := args
	switch {
	case t.in != nil:
		var errs []schema.Error
		prepared, errs = t.in.Prepare(args)
		if len(errs) > 0 {
			return toolError(fmt.Sprintf("Invalid arguments for tool '%s'. Validation failed against input schema: %s", t.Name, joinErrors(errs))), nil
		}
	case t.inErr != nil && s.rt == pack.AgentOS:
		return toolError(fmt.Sprintf("tool '%s' cannot run: %v", t.Name, t.inErr)), nil
	}
	data, err := marshalValue(prepared)
	if err != nil {
		return toolError(fmt.Sprintf("the arguments of tool '%s' cannot be sent: %v", t.Name, err)), nil
	}
	c, err := s.current(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return toolError(err.Error()), nil
	}
	callCtx, cancel := context.WithTimeout(ctx, s.callTimeout)
	defer cancel()
	r, err := c.Call(callCtx, t.Name, data)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if callCtx.Err() != nil {
			s.restart(c)
			return toolError(fmt.Sprintf("tool '%s' did not answer within %s (--call-timeout); plaios ended it and started the pack again", t.Name, s.callTimeout)), nil
		}
		if errors.Is(err, ErrChildExited) {
			return toolError(fmt.Sprintf("tool '%s' failed: %v; plaios starts the pack again for the next call", t.Name, err)), nil
		}
		return toolError(err.Error()), nil
	}
	meta := mcp.Meta{"dev.plaios/toolMicros": r.Micros}
	if !r.OK {
		res := toolError(r.Error)
		res.Meta = meta
		return res, nil
	}
	var res *mcp.CallToolResult
	switch s.rt {
	case pack.OpenClaw, pack.Pi:
		res, err = s.contentResult(t, r.Content)
	default:
		res, err = s.outputResult(t, r.Output)
	}
	if err != nil {
		return toolError(err.Error()), nil
	}
	res.Meta = meta
	return res, nil
}

// outputResult turns an AgentOS output (or a PLAIOS capability's data) into a result: the
// output checked against the output schema as the executor checks it (coerced, defaults
// filled), as text, and as structured content when the schema is advertised.
func (s *Server) outputResult(t *serverTool, raw json.RawMessage) (*mcp.CallToolResult, error) {
	if len(raw) == 0 {
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
	}
	if t.outErr != nil && s.rt == pack.AgentOS {
		return nil, fmt.Errorf("tool '%s' ran, but its output schema does not compile, so its output is dropped: %v", t.Name, t.outErr)
	}
	var value any
	if t.out != nil {
		v, err := jsonpos.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("tool '%s' returned output that is not JSON", t.Name)
		}
		prepared, errs := t.out.Prepare(v)
		if len(errs) > 0 {
			return nil, fmt.Errorf("Tool '%s' produced output that failed its defined output schema validation: %s", t.Name, joinErrors(errs))
		}
		value = finite(prepared)
		if raw, err = json.Marshal(value); err != nil {
			return nil, err
		}
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: textOf(raw)}}}
	if t.structure {
		if value == nil {
			_ = json.Unmarshal(raw, &value)
		}
		res.StructuredContent = value
	}
	return res, nil
}

// contentResult passes an OpenClaw or Pi tool result's content through (text and image
// items; anything else as its JSON), its details checked against the output schema.
func (s *Server) contentResult(t *serverTool, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var result struct {
		Content []json.RawMessage `json:"content"`
		Details json.RawMessage   `json:"details"`
	}
	if err := json.Unmarshal(raw, &result); err != nil || (result.Content == nil && len(raw) > 0 && raw[0] != '{') {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: textOf(raw)}}}, nil
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{}}
	for _, item := range result.Content {
		var c struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Data     string `json:"data"`
			MIMEType string `json:"mimeType"`
		}
		_ = json.Unmarshal(item, &c)
		switch c.Type {
		case "text":
			res.Content = append(res.Content, &mcp.TextContent{Text: c.Text})
		case "image":
			if data, err := base64.StdEncoding.DecodeString(c.Data); err == nil {
				res.Content = append(res.Content, &mcp.ImageContent{Data: data, MIMEType: c.MIMEType})
				continue
			}
			fallthrough
		default:
			res.Content = append(res.Content, &mcp.TextContent{Text: string(item)})
		}
	}
	if t.out != nil && len(result.Details) > 0 {
		v, err := jsonpos.Parse(result.Details)
		if err == nil {
			prepared, errs := t.out.Prepare(v)
			if len(errs) > 0 {
				return nil, fmt.Errorf("Tool '%s' produced output that failed its defined output schema validation: %s", t.Name, joinErrors(errs))
			}
			if t.structure {
				res.StructuredContent = finite(prepared)
			}
		}
	}
	return res, nil
}

// textOf is a JSON value as text: a string as it is, anything else as its JSON.
func textOf(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

func joinErrors(errs []schema.Error) string {
	parts := make([]string, 0, len(errs))
	for _, e := range errs {
		parts = append(parts, e.String())
	}
	return strings.Join(parts, "; ")
}

// marshalValue writes a prepared value as JSON, a number that coercion made infinite as
// null (what JSON.stringify writes).
func marshalValue(v any) (json.RawMessage, error) {
	return json.Marshal(finite(v))
}

func finite(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
	case map[string]any:
		for k, it := range x {
			x[k] = finite(it)
		}
	case []any:
		for i, it := range x {
			x[i] = finite(it)
		}
	case *jsonpos.Value:
		return json.RawMessage(jsonText(x))
	}
	return v
}

// jsonText re-encodes a parsed value (arguments passed on untouched).
func jsonText(v *jsonpos.Value) []byte {
	data, _ := json.Marshal(v.Interface())
	return data
}

// redactor replaces secret values in what goes back to the client: each value, its base64
// (standard and URL alphabets, at any alignment inside a longer encoding), its hex and its
// URL-encoded forms, alone or split across consecutive strings of one result.
type redactor struct {
	mu     sync.RWMutex
	values []string
	forms  []string // every form to look for, longest first
}

// Redacted stands for a secret's value.
const Redacted = "[redacted]"

func (r *redactor) add(v string) {
	v = strings.TrimSpace(v)
	if len(v) < 4 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, have := range r.values {
		if have == v {
			return
		}
	}
	r.values = append(r.values, v)
	seen := map[string]bool{}
	for _, f := range r.forms {
		seen[f] = true
	}
	for _, f := range encodedForms(v) {
		if !seen[f] {
			seen[f] = true
			r.forms = append(r.forms, f)
		}
	}
	sort.SliceStable(r.forms, func(i, j int) bool { return len(r.forms[i]) > len(r.forms[j]) })
}

// encodedForms lists a secret and the forms it takes when encoded: base64 (whole, and the
// part that does not depend on the bytes around it at each of the three alignments inside a
// longer encoding), hex in both cases, and URL encoding.
func encodedForms(v string) []string {
	out := []string{v}
	b := []byte(v)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		raw := enc.WithPadding(base64.NoPadding)
		out = append(out, enc.EncodeToString(b), raw.EncodeToString(b))
		for k := 0; k < 3; k++ {
			e := raw.EncodeToString(append(make([]byte, k), b...))
			start := 0
			if k > 0 {
				start = 4
			}
			end := ((k + len(b)) / 3) * 4
			if end-start >= 8 {
				out = append(out, e[start:end])
			}
		}
	}
	out = append(out, hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)), url.QueryEscape(v), url.PathEscape(v))
	return out
}

func (r *redactor) text(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, f := range r.forms {
		if strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, Redacted)
		}
	}
	return s
}

func (r *redactor) empty() bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.values) == 0
}

// strs redacts strings that go out together: each alone, then a secret split across
// consecutive ones (the parts it covers are redacted in each).
func (r *redactor) strs(parts []*string) {
	for _, p := range parts {
		*p = r.text(*p)
	}
	if len(parts) < 2 {
		return
	}
	var joined strings.Builder
	offsets := make([]int, len(parts)+1)
	for i, p := range parts {
		offsets[i] = joined.Len()
		joined.WriteString(*p)
	}
	offsets[len(parts)] = joined.Len()
	all := joined.String()
	type span struct{ a, b int }
	var spans []span
	r.mu.RLock()
	for _, f := range r.forms {
		for from := 0; ; {
			i := strings.Index(all[from:], f)
			if i < 0 {
				break
			}
			a := from + i
			spans = append(spans, span{a, a + len(f)})
			from = a + 1
		}
	}
	r.mu.RUnlock()
	if len(spans) == 0 {
		return
	}
	for i, p := range parts {
		lo, hi := offsets[i], offsets[i+1]
		text := *p
		covered := make([]bool, len(text))
		any := false
		for _, sp := range spans {
			for j := max(sp.a, lo); j < min(sp.b, hi); j++ {
				covered[j-lo] = true
				any = true
			}
		}
		if !any {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(text); {
			if !covered[j] {
				b.WriteByte(text[j])
				j++
				continue
			}
			for j < len(text) && covered[j] {
				j++
			}
			b.WriteString(Redacted)
		}
		*p = b.String()
	}
}

func (r *redactor) result(res *mcp.CallToolResult) {
	if res == nil || r.empty() {
		return
	}
	var parts []*string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			tc.Text = r.jsonText(tc.Text)
			parts = append(parts, &tc.Text)
		}
	}
	var sets []func()
	var collect func(v any, set func(any))
	collect = func(v any, set func(any)) {
		switch x := v.(type) {
		case string:
			p := new(string)
			*p = x
			parts = append(parts, p)
			sets = append(sets, func() { set(*p) })
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				collect(x[k], func(nv any) { x[k] = nv })
			}
		case []any:
			for i := range x {
				collect(x[i], func(nv any) { x[i] = nv })
			}
		}
	}
	if res.StructuredContent != nil {
		collect(res.StructuredContent, func(nv any) { res.StructuredContent = nv })
	}
	r.strs(parts)
	for _, set := range sets {
		set()
	}
}

// jsonText redacts a text that is a JSON document (a tool's output as text) string by string,
// values in document order, so that a secret split across consecutive fields is found; the
// text keeps its layout. Any other text is returned as it is.
func (r *redactor) jsonText(s string) string {
	t := strings.TrimSpace(s)
	if r.empty() || t == "" || (t[0] != '{' && t[0] != '[') {
		return s
	}
	dec := json.NewDecoder(strings.NewReader(s))
	type lit struct {
		start, end int
		value      string
	}
	var lits []lit
	// Whether the next string of each open container is an object's key.
	var objects []bool
	expectKey := false
	prev := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		end := int(dec.InputOffset())
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				objects = append(objects, true)
				expectKey = true
			case '[':
				objects = append(objects, false)
				expectKey = false
			default:
				objects = objects[:len(objects)-1]
				expectKey = len(objects) > 0 && objects[len(objects)-1]
			}
		case string:
			if len(objects) > 0 && objects[len(objects)-1] && expectKey {
				expectKey = false
			} else {
				if start := strings.IndexByte(s[prev:end], '"'); start >= 0 {
					lits = append(lits, lit{prev + start, end, v})
				}
				expectKey = len(objects) > 0 && objects[len(objects)-1]
			}
		default:
			expectKey = len(objects) > 0 && objects[len(objects)-1]
		}
		prev = end
	}
	if len(lits) == 0 {
		return s
	}
	parts := make([]*string, len(lits))
	for i := range lits {
		v := lits[i].value
		parts[i] = &v
	}
	r.strs(parts)
	var b strings.Builder
	at := 0
	for i, l := range lits {
		if *parts[i] == l.value {
			continue
		}
		enc, _ := json.Marshal(*parts[i])
		b.WriteString(s[at:l.start])
		b.Write(enc)
		at = l.end
	}
	if at == 0 {
		return s
	}
	b.WriteString(s[at:])
	return b.String()
}

// json redacts the strings inside a JSON document (a tool's schema), leaving it as it is
// when it holds no secret.
func (r *redactor) json(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || r.empty() || r.text(string(raw)) == string(raw) {
		return raw
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return json.RawMessage(r.text(string(raw)))
	}
	res := &mcp.CallToolResult{StructuredContent: v}
	r.result(res)
	out, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return raw
	}
	return out
}

// redactWriter redacts what it passes on (the verbose log).
type redactWriter struct {
	w io.Writer
	r *redactor
}

func (rw redactWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(rw.w, rw.r.text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
