package testenv

import "testing"

// TestDecodeFirstJSON: openclaw's report is found after what plugins printed while they loaded
// (a log line with braces of its own included) and before anything after it.
func TestDecodeFirstJSON(t *testing.T) {
	out := []byte("[discord] starting {pid 4}\n[\n  {\"plugin\": {\"id\": \"codex\", \"status\": \"loaded\", \"toolNames\": [\"codex_threads\"]},\n" +
		"   \"diagnostics\": [{\"level\": \"error\", \"message\": \"native compaction requires the registry-owned \\\"codex\\\" harness\"}]}\n]\nbye\n")
	var all []OpenClawInspected
	if err := decodeFirstJSON(out, &all); err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Plugin.ID != "codex" || all[0].Plugin.Status != "loaded" || len(all[0].Plugin.ToolNames) != 1 ||
		len(all[0].Diagnostics) != 1 || all[0].Diagnostics[0].Level != "error" {
		t.Errorf("decoded %+v", all)
	}
	var one OpenClawInspected
	if err := decodeFirstJSON([]byte(`{"plugin":{"id":"discord","status":"error","error":"PluginTrustRefusalError: …"},"diagnostics":[]}`), &one); err != nil {
		t.Fatal(err)
	}
	if one.Plugin.ID != "discord" || one.Plugin.Error != "PluginTrustRefusalError: …" {
		t.Errorf("decoded %+v", one)
	}
	if err := decodeFirstJSON([]byte("no report\n"), &all); err == nil {
		t.Error("no JSON: no error")
	}
}

// TestOpenClawFailure: openclaw took a plugin when it loaded it and left no error for it; a
// warning (the one every plugin from a load path gets) is not a refusal.
func TestOpenClawFailure(t *testing.T) {
	for _, c := range []struct{ report, want string }{
		{`{"plugin":{"id":"a","status":"loaded"},"diagnostics":[{"level":"warn","message":"OpenClaw can't verify where this plugin came from."}]}`, ""},
		{`{"plugin":{"id":"a","status":"loaded"},"diagnostics":[{"level":"warn","message":"w"},{"level":"error","message":"register threw: boom\n  at x"}]}`, "register threw: boom\n  at x"},
		{`{"plugin":{"id":"a","status":"error","error":"PluginTrustRefusalError: no"},"diagnostics":[]}`, "PluginTrustRefusalError: no"},
		{`{"plugin":{"id":"a","status":"disabled"},"diagnostics":[]}`, "status disabled"},
	} {
		var r OpenClawInspected
		if err := decodeFirstJSON([]byte(c.report), &r); err != nil {
			t.Fatal(err)
		}
		if got := r.Failure(); got != c.want {
			t.Errorf("%s: Failure() = %q, want %q", c.report, got, c.want)
		}
	}
}
