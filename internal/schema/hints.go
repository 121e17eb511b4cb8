package schema

import (
	"fmt"
	"sort"
	"strings"
)

// Hints say how to fix what a finding reports, with the usual mistakes named.

var keywordAdvice = map[string]string{
	"example":               `Draft-07 spells it "examples", an array.`,
	"prefixItems":           `Draft-07 writes a tuple as "items": [ … ].`,
	"dependentRequired":     `Draft-07 spells it "dependencies" (an array of names).`,
	"dependentSchemas":      `Draft-07 spells it "dependencies" (a schema).`,
	"$anchor":               `Draft-07 names a subschema with "$id": "#name".`,
	"unevaluatedProperties": `Draft-07 has no unevaluatedProperties; use "additionalProperties".`,
	"unevaluatedItems":      `Draft-07 has no unevaluatedItems; use "additionalItems".`,
	"minContains":           `minContains is draft 2019-09; draft-07 has only "contains".`,
	"maxContains":           `maxContains is draft 2019-09; draft-07 has only "contains".`,
	"$dynamicRef":           `$dynamicRef is draft 2020-12; use "$ref".`,
	"$recursiveRef":         `$recursiveRef is draft 2019-09; use "$ref".`,
	"optional":              `Draft-07 lists the properties that must be given in the parent's "required" array.`,
	"discriminator":         `"discriminator" is OpenAPI; Ajv reads it only when told to. Remove it.`,
}

func keywordHint(kw string) string {
	if a, ok := keywordAdvice[kw]; ok {
		return a
	}
	if strings.HasPrefix(strings.ToLower(kw), "x-") {
		return `Ajv's strict mode refuses vendor extensions: remove it, or put the information in "description".`
	}
	if s := nearest(kw, keys(knownKeywords)); s != "" {
		return fmt.Sprintf("Did you mean %q?", s)
	}
	return `Remove it, or put the information in "description".`
}

var formatAdvice = map[string]string{
	"datetime": "date-time", "date_time": "date-time", "dateTime": "date-time", "timestamp": "date-time",
	"e-mail": "email", "mail": "email", "url": "url", "link": "uri", "ip": "ipv4", "ip-address": "ipv4",
	"int": "int32", "integer": "int32", "long": "int64", "guid": "uuid", "host": "hostname",
}

func formatHint(name string) string {
	known := keys(formatsKnown())
	if s, ok := formatAdvice[name]; ok && s != name {
		return fmt.Sprintf("Did you mean %q?", s)
	}
	if s := nearest(name, known); s != "" {
		return fmt.Sprintf("Did you mean %q?", s)
	}
	return "ajv-formats knows " + strings.Join(known, ", ") + `; use "pattern" for anything else.`
}

func formatsKnown() map[string]bool {
	m := map[string]bool{}
	for k := range formats {
		m[k] = true
	}
	return m
}

var typeAdvice = map[string]string{
	"int": "integer", "float": "number", "double": "number", "decimal": "number", "bool": "boolean",
	"str": "string", "text": "string", "dict": "object", "map": "object", "list": "array", "none": "null",
}

func typeHint(k *checker, ptr string) string {
	var names []string
	switch v := k.valueAt(ptr).(type) {
	case string:
		names = append(names, v)
	case *array:
		for _, it := range v.items {
			if s, ok := it.(string); ok {
				names = append(names, s)
			}
		}
	}
	for _, n := range names {
		if jsonTypes[n] {
			continue
		}
		if n == "any" {
			return `Leave "type" out to accept any value.`
		}
		if s, ok := typeAdvice[strings.ToLower(n)]; ok {
			return fmt.Sprintf("Did you mean %q?", s)
		}
		if s := nearest(n, keys(jsonTypes)); s != "" {
			return fmt.Sprintf("Did you mean %q?", s)
		}
	}
	return "The types are string, number, integer, boolean, null, object and array."
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// nearest returns the candidate closest to s (one edit away for short words, two for
// longer ones, case aside), or "".
func nearest(s string, candidates []string) string {
	if len(s) < 3 {
		return ""
	}
	limit := 2
	if len(s) <= 4 {
		limit = 1
	}
	best, bestD := "", limit+1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance (transpositions count as one edit).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 99
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
