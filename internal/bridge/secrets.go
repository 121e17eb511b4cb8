package bridge

import (
	"regexp"
	"strings"
	"sync"

	"github.com/plaios/plaios/internal/exit"
)

var envVarName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// ParseSecrets reads `--secret id=ENV_VAR` flags into Loader.SecretEnv: AgentOS secret ids
// mapped to the environment variables that hold them. A value that is not an environment
// variable's name is refused (exit 2) without being repeated: it may be the secret itself.
func ParseSecrets(flags []string) (map[string]string, error) {
	m := map[string]string{}
	for _, s := range flags {
		id, env, ok := strings.Cut(s, "=")
		id = strings.TrimSpace(id)
		if !ok || id == "" {
			return nil, exit.Usagef("--secret takes ID=ENV_VAR, the secret's id and the environment variable that holds it")
		}
		if !envVarName().MatchString(env) {
			return nil, exit.Usagef("--secret %s=…: after = give the name of the environment variable that holds the secret (letters, digits and _), never the secret itself", id)
		}
		m[id] = env
	}
	return m, nil
}
