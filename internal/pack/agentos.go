package pack

import (
	"io/fs"

	"github.com/plaios/plaios/internal/jsonpos"
)

// AgentOSModel is a parsed AgentOS manifest.json, in either dialect: the common one
// ({id, name, version, extensions[], requiredSecrets, configuration}) or the flat provider form
// of voice packs ({name, version, kind, extensionId, entryPoint}).
type AgentOSModel struct {
	File  string // relative to the workspace root
	Data  []byte
	Value *jsonpos.Value // nil when the file does not parse
	Err   error

	ID      string
	Name    string
	Version string
	Flat    bool // the provider form

	Extensions      []AgentOSExtension
	RequiredSecrets []AgentOSSecret
	OptionalSecrets []AgentOSSecret
	Config          []AgentOSConfigProp
}

// AgentOSExtension is one entry of `extensions` (or the flat form's single extension).
type AgentOSExtension struct {
	Kind  string
	ID    string
	Entry string
	Value *jsonpos.Value
}

// AgentOSSecret is a declared secret, from the string or the object form.
type AgentOSSecret struct {
	ID       string
	EnvVar   string
	Optional bool
	Value    *jsonpos.Value
}

// AgentOSConfigProp is one `configuration.properties` entry.
type AgentOSConfigProp struct {
	Key    string
	KeyPos jsonpos.Pos
	Secret bool
	Value  *jsonpos.Value
}

// ParseAgentOS reads an AgentOS manifest from fsys.
func ParseAgentOS(fsys fs.FS, file string) *AgentOSModel {
	m := &AgentOSModel{File: file}
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		m.Err = err
		return m
	}
	m.Data = data
	v, err := jsonpos.Parse(data)
	if err != nil {
		m.Err = err
		return m
	}
	m.Value = v
	if v.Kind != jsonpos.Object {
		return m
	}
	m.ID = v.Get("id").Text()
	m.Name = v.Get("name").Text()
	m.Version = v.Get("version").Text()
	if v.Get("extensions") == nil && v.Get("extensionId") != nil {
		m.Flat = true
		m.Extensions = []AgentOSExtension{{
			Kind:  v.Get("kind").Text(),
			ID:    v.Get("extensionId").Text(),
			Entry: v.Get("entryPoint").Text(),
			Value: v,
		}}
	}
	if exts := v.Get("extensions"); exts != nil && exts.Kind == jsonpos.Array {
		for _, e := range exts.Items {
			m.Extensions = append(m.Extensions, AgentOSExtension{
				Kind:  e.Get("kind").Text(),
				ID:    e.Get("id").Text(),
				Entry: e.Get("entry").Text(),
				Value: e,
			})
		}
	}
	m.RequiredSecrets = parseSecrets(v.Get("requiredSecrets"))
	m.OptionalSecrets = parseSecrets(v.Get("optionalSecrets"))
	for i := range m.OptionalSecrets {
		m.OptionalSecrets[i].Optional = true
	}
	if props := v.Path("configuration", "properties"); props != nil && props.Kind == jsonpos.Object {
		for _, mem := range props.Members {
			sec := mem.Value.Get("secret")
			m.Config = append(m.Config, AgentOSConfigProp{
				Key:    mem.Key,
				KeyPos: mem.KeyPos,
				Secret: sec != nil && sec.Kind == jsonpos.Bool && sec.Boolean,
				Value:  mem.Value,
			})
		}
	}
	return m
}

func parseSecrets(v *jsonpos.Value) []AgentOSSecret {
	if v == nil || v.Kind != jsonpos.Array {
		return nil
	}
	var out []AgentOSSecret
	for _, it := range v.Items {
		switch it.Kind {
		case jsonpos.String:
			out = append(out, AgentOSSecret{ID: it.Str, Value: it})
		case jsonpos.Object:
			opt := it.Get("optional")
			out = append(out, AgentOSSecret{
				ID:       it.Get("id").Text(),
				EnvVar:   it.Get("envVar").Text(),
				Optional: opt != nil && opt.Kind == jsonpos.Bool && opt.Boolean,
				Value:    it,
			})
		}
	}
	return out
}

// Declares reports whether the manifest declares AgentOS extensions: an `extensions` member,
// or the flat provider form's `extensionId`. A manifest.json that does neither (a web app
// manifest, a browser extension's) does not make a package an AgentOS pack.
func (m *AgentOSModel) Declares() bool {
	return m.Value != nil && m.Value.Kind == jsonpos.Object && (m.Value.Get("extensions") != nil || m.Value.Get("extensionId") != nil)
}

// Secret reports whether id is declared in requiredSecrets or optionalSecrets.
func (m *AgentOSModel) Secret(id string) bool {
	for _, s := range m.RequiredSecrets {
		if s.ID == id {
			return true
		}
	}
	for _, s := range m.OptionalSecrets {
		if s.ID == id {
			return true
		}
	}
	return false
}

// ExtensionIDs returns the ids of the manifest's extensions.
func (m *AgentOSModel) ExtensionIDs() []string {
	var out []string
	for _, e := range m.Extensions {
		if e.ID != "" {
			out = append(out, e.ID)
		}
	}
	return out
}

// KnownKinds are the descriptor kinds the AgentOS runtime registers (RUNTIMES.md).
var KnownKinds = []string{"tool", "guardrail", "response-processor", "workflow", "workflow-executor",
	"persona", "planning-strategy", "hitl-handler", "communication-channel", "memory-provider",
	"stt-provider", "tts-provider", "vad-provider", "wake-word-provider", "messaging-channel",
	"http-handler", "provenance", "streaming-stt-provider", "streaming-tts-provider",
	"diarization-provider", "endpoint-detector", "bargein-handler"}
