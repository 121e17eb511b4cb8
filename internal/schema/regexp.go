package schema

import (
	"unicode/utf16"

	"github.com/plaios/plaios/internal/jsregexp"
)

// regexFormat is ajv-formats' "regex" format: no \Z anchor, and `new RegExp(s)` succeeds.
func regexFormat(s string) bool {
	units := utf16.Encode([]rune(s))
	for i := 1; i+1 < len(units); i++ {
		if units[i] == '\\' && units[i+1] == 'Z' && units[i-1] != '\\' {
			return false
		}
	}
	_, err := jsregexp.Compile(s, "")
	return err == nil
}
