package bridge

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plaios/plaios/internal/guard"
	"github.com/plaios/plaios/internal/pack"
)

// configureFromEnv gives each PLAIOS interface the configuration the host would: a field's
// value comes from its env variable, else its default (numbers through Number(), booleans
// from true/false/1/0); an interface whose required field has neither does not start. The
// role map's fixture options, when there are any, overlay the rest. It returns a note per
// interface left out.
func configureFromEnv(in *guard.HarnessInput, p *Pack, getenv func(string) string) []string {
	m := p.Pack.PLAIOS
	if m == nil {
		return nil
	}
	var notes []string
	for i := range in.PLAIOS {
		if i >= len(m.Ifaces) {
			break
		}
		it := &in.PLAIOS[i]
		iface := m.Ifaces[i]
		it.Options = map[string]any{}
		it.EnvValues = map[string]string{}
		var missing []string
		for _, f := range iface.Fields {
			key := pack.Scalar(f.Key)
			if key == "" {
				continue
			}
			env := pack.Scalar(f.Env)
			var value any
			if raw := envValue(getenv, env); raw != "" {
				value = convertConfig(raw, pack.Scalar(f.Type))
				it.EnvValues[env] = raw
			} else if f.Default != nil {
				var d any
				if f.Default.Decode(&d) == nil {
					value = d
				}
			}
			if v, ok := p.Fixture.Options[key]; ok {
				value = v
			}
			if value == nil {
				if isTrue(f.Required) {
					if env != "" {
						missing = append(missing, fmt.Sprintf("%s (%s)", key, env))
					} else {
						missing = append(missing, key)
					}
				}
				continue
			}
			it.Options[key] = value
		}
		for k, v := range p.Fixture.Options {
			if _, ok := it.Options[k]; !ok {
				it.Options[k] = v
			}
		}
		if len(missing) > 0 {
			it.Skip = true
			notes = append(notes, fmt.Sprintf("interface %s (%s) is left out: missing required config %s", it.ID, it.ClassName, strings.Join(missing, ", ")))
		}
	}
	return notes
}

func envValue(getenv func(string) string, name string) string {
	if name == "" {
		return ""
	}
	return getenv(name)
}

// convertConfig turns an environment value into the field's type, as the PLAIOS host does.
func convertConfig(raw, typ string) any {
	switch typ {
	case "number":
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if strings.TrimSpace(raw) == "" {
			return 0.0
		}
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return f
	case "boolean":
		switch strings.TrimSpace(raw) {
		case "true", "1":
			return true
		case "false", "0":
			return false
		}
	}
	return raw
}

func isTrue(n *yaml.Node) bool {
	var b bool
	return n != nil && n.Decode(&b) == nil && b
}
