package pack

import (
	"io/fs"

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

// PiCorePackages are the Pi packages an extension must take as peers with range "*".
var PiCorePackages = []string{"@earendil-works/pi-coding-agent", "@earendil-works/pi-ai", "@earendil-works/pi-agent-core", "@earendil-works/pi-tui", "typebox"}

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
