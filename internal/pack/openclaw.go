package pack

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/workspace"
)

// OpenClawModel is a parsed openclaw.plugin.json (JSON5, as OpenClaw reads it).
type OpenClawModel struct {
	File  string
	Data  []byte
	Value *jsonpos.Value
	Err   error

	ID      string
	Version string
	Tools   []string // contracts.tools
}

// OpenClawKeys are the top-level keys openclaw 2026.9.6's manifest loader reads
// (loadPluginManifest in its dist/manifest-*.mjs), plus "$schema", which editors read.
var OpenClawKeys = []string{
	"$schema", "activation", "autoEnableWhenConfiguredProviders", "backupResources",
	"capabilityCatalogEntry", "catalog", "categories", "channelAccountKeyPolicies", "channelConfigs",
	"channels", "cliBackends", "cliCommands", "commandAliases", "configContracts", "configGroups",
	"configSchema", "contracts", "controlUi", "dashboard", "decisionModels", "description",
	"doctorContract", "doctorHealthChecks", "enabledByDefault", "enabledByDefaultOnPlatforms", "id",
	"imageGenerationProviderMetadata", "kind", "legacyPluginIds", "mcpServers",
	"mediaUnderstandingProviderMetadata", "modelCatalog", "modelIdNormalization", "modelPricing",
	"modelSupport", "musicGenerationProviderMetadata", "name", "nonSecretAuthMarkers",
	"providerAuthAliases", "providerAuthChoices", "providerCatalogEntry", "providerEndpoints",
	"providerRequest", "providerUsageAuthEnvVars", "providers", "qaRunners", "requiresPlugins",
	"secretProviderIntegrations", "sessionRouteStateOwners", "setup", "skills", "syntheticAuthRefs",
	"themes", "toolMetadata", "transcriptSources", "uiHints", "version",
	"videoGenerationProviderMetadata",
}

// ParseOpenClaw reads openclaw.plugin.json.
func ParseOpenClaw(fsys fs.FS, file string) *OpenClawModel {
	m := &OpenClawModel{File: file}
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		m.Err = err
		return m
	}
	m.Data = data
	v, err := jsonpos.ParseJSON5(data)
	if err != nil {
		m.Err = err
		return m
	}
	m.Value = v
	m.ID = v.Get("id").Text()
	m.Version = v.Get("version").Text()
	m.Tools = v.Path("contracts", "tools").Strings()
	return m
}

// PiModel is the `pi` field of a Pi package's package.json.
type PiModel struct {
	Value      *jsonpos.Value
	Extensions []*jsonpos.Value // the string items of pi.extensions
}

// PiCodingAgent is Pi's own package, whose extension loader loads a Pi package.
const PiCodingAgent = "@earendil-works/pi-coding-agent"

// PiCorePackages are the Pi packages an extension must take as peers with range "*".
var PiCorePackages = []string{PiCodingAgent, "@earendil-works/pi-ai", "@earendil-works/pi-agent-core", "@earendil-works/pi-tui", "typebox"}

// ParsePi reads the `pi` field.
func ParsePi(pj *workspace.PackageJSON) *PiModel {
	m := &PiModel{Value: pj.Get("pi")}
	if exts := m.Value.Get("extensions"); exts != nil && exts.Kind == jsonpos.Array {
		for _, it := range exts.Items {
			if it.Kind == jsonpos.String {
				m.Extensions = append(m.Extensions, it)
			}
		}
	}
	return m
}

// OpenClawEntry is one entry point of an OpenClaw plugin package, as openclaw 2026.9.6 reads
// package.json when it installs and loads a plugin (validatePackageExtensionEntriesForInstall
// and resolvePackageRuntimeExtensions in its dist/package-entry-resolution-*.mjs, from
// src/plugins/package-entry-resolution.ts): `openclaw.extensions[i]` names the source entry and
// `openclaw.runtimeExtensions[i]`, when given, the built file an installed plugin loads in its
// place; `openclaw.setupEntry` and `openclaw.runtimeSetupEntry` pair the same way.
type OpenClawEntry struct {
	Field   string         // "openclaw.extensions[0]", "openclaw.setupEntry"
	Source  *jsonpos.Value // the declared entry (a non-empty string)
	Runtime *jsonpos.Value // its runtime entry, nil when none is given
}

// OpenClawEntryProblem is a fault openclaw refuses to install a package for, at a value of
// package.json (nil: the file's start).
type OpenClawEntryProblem struct {
	At      *jsonpos.Value
	Message string // openclaw's own wording where it has one
}

// OpenClawEntries reads the entry points of package.json (its parsed value) as openclaw's
// installer does. Missing reports that there is no openclaw.extensions at all.
func OpenClawEntries(pj *jsonpos.Value) (entries []OpenClawEntry, problems []OpenClawEntryProblem, missing bool) {
	oc := pj.Get("openclaw")
	if oc == nil || oc.Kind == jsonpos.Null {
		return nil, nil, true
	}
	if oc.Kind != jsonpos.Object {
		return nil, []OpenClawEntryProblem{{oc, "package.json openclaw must be an object"}}, false
	}
	exts := oc.Get("extensions")
	switch {
	case exts == nil || exts.Kind == jsonpos.Null:
		return nil, nil, true
	case exts.Kind != jsonpos.Array:
		return nil, []OpenClawEntryProblem{{exts, "package.json openclaw.extensions must be an array"}}, false
	case len(exts.Items) == 0:
		return nil, []OpenClawEntryProblem{{exts, "package.json openclaw.extensions is empty"}}, false
	}
	for i, it := range exts.Items {
		if !nonEmptyString(it) {
			return nil, []OpenClawEntryProblem{{it, fmt.Sprintf("package.json openclaw.extensions[%d] must be a non-empty string", i)}}, false
		}
	}
	// runtimeExtensions: a list that is not an array counts as none; when given, it pairs with
	// extensions one to one.
	var runtime []*jsonpos.Value
	if rt := oc.Get("runtimeExtensions"); rt != nil && rt.Kind == jsonpos.Array && len(rt.Items) > 0 {
		for i, it := range rt.Items {
			if !nonEmptyString(it) {
				return nil, []OpenClawEntryProblem{{it, fmt.Sprintf("package.json openclaw.runtimeExtensions[%d] must be a non-empty string", i)}}, false
			}
		}
		if len(rt.Items) != len(exts.Items) {
			return nil, []OpenClawEntryProblem{{rt, fmt.Sprintf("package.json openclaw.runtimeExtensions length (%d) must match openclaw.extensions length (%d)", len(rt.Items), len(exts.Items))}}, false
		}
		runtime = rt.Items
	}
	for i, it := range exts.Items {
		e := OpenClawEntry{Field: fmt.Sprintf("openclaw.extensions[%d]", i), Source: it}
		if runtime != nil {
			e.Runtime = runtime[i]
		}
		entries = append(entries, e)
	}
	setup, runtimeSetup := oc.Get("setupEntry"), oc.Get("runtimeSetupEntry")
	switch {
	case nonEmptyString(runtimeSetup) && !nonEmptyString(setup):
		problems = append(problems, OpenClawEntryProblem{runtimeSetup, "package.json openclaw.runtimeSetupEntry requires openclaw.setupEntry"})
	case nonEmptyString(setup):
		e := OpenClawEntry{Field: "openclaw.setupEntry", Source: setup}
		if nonEmptyString(runtimeSetup) {
			e.Runtime = runtimeSetup
		}
		entries = append(entries, e)
	}
	return entries, problems, false
}

// nonEmptyString is openclaw's normalizeOptionalString test: a string with something besides
// white space.
func nonEmptyString(v *jsonpos.Value) bool {
	return v != nil && v.Kind == jsonpos.String && strings.TrimSpace(v.Str) != ""
}

// IsTypeScriptEntry reports whether an entry is TypeScript source, which an installed plugin
// never loads as such (isTypeScriptPackageEntry in openclaw's dist/package-entrypoints-*.mjs).
func IsTypeScriptEntry(entry string) bool {
	switch strings.ToLower(path.Ext(entry)) {
	case ".ts", ".tsx", ".mts", ".cts":
		return true
	}
	return false
}

// BuiltEntryCandidates lists, in openclaw's order, the compiled files openclaw tries for a
// TypeScript entry that has no runtime entry (listBuiltRuntimeEntryCandidates in its
// dist/package-entrypoints-*.mjs): ./src/index.ts → ./dist/index.js, .mjs, .cjs,
// ./dist/src/index.js …, ./src/index.js …. None for an entry that is not TypeScript.
func BuiltEntryCandidates(entry string) []string {
	if !IsTypeScriptEntry(entry) {
		return nil
	}
	normalized := strings.ReplaceAll(entry, `\`, "/")
	ext := strings.ToLower(path.Ext(normalized))
	without := normalized[:len(normalized)-len(path.Ext(normalized))]
	rel := strings.TrimPrefix(without, "./")
	dist := "./dist/" + rel
	if strings.HasPrefix(rel, "src/") {
		dist = "./dist/" + rel[len("src/"):]
	}
	outs := []string{".js", ".mjs", ".cjs"}
	switch ext {
	case ".mts":
		outs = []string{".mjs", ".js", ".cjs"}
	case ".cts":
		outs = []string{".cjs", ".js", ".mjs"}
	}
	bases := []string{dist}
	if strings.HasPrefix(rel, "src/") {
		bases = append(bases, "./dist/"+rel)
	}
	bases = append(bases, without)
	var out []string
	for _, b := range bases {
		for _, e := range outs {
			out = append(out, b+e)
		}
	}
	return out
}
