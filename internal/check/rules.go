package check

// rules is every rule plaios has, in the order of RULES.md's sections. Each is a value in the
// file of its family; this list is the one place that says which of them run. Tests run a
// subset through Options.Rules.
var rules = []*Rule{
	// Any package (pkgjson.go, entries.go).
	packageJSONInvalidRule,
	packageNameInvalidRule,
	packageVersionInvalidRule,
	exportsTargetInvalidRule,
	entryNotShippedRule,
	manifestNotShippedRule,
	workspaceProtocolRule,
	secretShippedRule,
	readmeMissingRule,
	typesNotShippedRule,       // entries.go
	entryTypeScriptRule,       // entries.go
	hostRuntimeDependencyRule, // entries.go
	pathOutsidePackageRule,    // entries.go

	// AgentOS (agentos.go).
	agentOSManifestInvalidRule,
	agentOSVersionMismatchRule,
	agentOSNameRule,
	agentOSLicenseRule,
	agentOSLicenseFileRule,
	agentOSPublishAccessRule,
	agentOSKindUnknownRule,
	agentOSSecretUndeclaredRule,
	agentOSManifestNotExportedRule,
	agentOSPeerRangeRule,
	roleMissingRule,
	roleUnknownRule,
	roleOrphanRule,

	// PLAIOS (plaios.go).
	plaiosManifestInvalidRule,
	plaiosKindUnknownRule,
	plaiosClassMissingRule,
	plaiosInterfaceDuplicateRule,
	plaiosDependencyUnknownRule,
	plaiosEntryUnresolvedRule,
	plaiosPageMissingRule,
	plaiosVersionMismatchRule,
	plaiosConfigInvalidRule,
	plaiosFieldIgnoredRule,
	plaiosStartupInvalidRule,

	// OpenClaw and Pi (openclaw.go).
	openClawManifestInvalidRule,
	openClawVersionMismatchRule,
	openClawEntryRule,
	openClawContractDriftRule,
	piPeerRangeRule,
	piExtensionMissingRule,

	// Tool schemas (schemas.go). schema-invalid's run reports the findings of every schema-*
	// rule of the run.
	schemaInvalidRule,
	schemaTypeUnknownRule,
	schemaDraftRule,
	schemaMetaIDRule,
	schemaAsyncRule,
	schemaFormatUnknownRule,
	schemaKeywordUnknownRule,
	schemaDefaultInvalidRule,
	schemaNotStrictRule,
	toolNameInvalidRule,
	descriptorUndeclaredRule,
}

// rulesByID indexes rules for Lookup.
var rulesByID = func() map[string]*Rule {
	m := make(map[string]*Rule, len(rules))
	for _, r := range rules {
		m[r.ID] = r
	}
	return m
}()
