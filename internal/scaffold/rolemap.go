package scaffold

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// member is one key of a JSON object, with where its text starts and its value ends.
type member struct {
	key        string
	start, end int64
}

// AddRole adds `"key": "role"` to the "roles" object of a role map, changing nothing else in
// the file: the new line takes the indentation and separator of the existing entries and goes
// where the keys' alphabetical order puts it (at the end when they are not sorted). added is
// false when the key is already there.
func AddRole(data []byte, key, role string) (out []byte, added bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false, errors.New("the role map is not a JSON object")
	}
	var open int64 = -1 // offset just after the "{" of roles
	var members []member
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false, fmt.Errorf("the role map is not valid JSON: %v", err)
		}
		name, _ := k.(string)
		if name != "roles" {
			if err := skipValue(dec); err != nil {
				return nil, false, err
			}
			continue
		}
		t, err := dec.Token()
		if err != nil || t != json.Delim('{') {
			return nil, false, errors.New(`"roles" is not an object`)
		}
		open = dec.InputOffset()
		for dec.More() {
			start := skipSpace(data, dec.InputOffset())
			k, err := dec.Token()
			if err != nil {
				return nil, false, fmt.Errorf("the role map is not valid JSON: %v", err)
			}
			if err := skipValue(dec); err != nil {
				return nil, false, err
			}
			members = append(members, member{key: k.(string), start: start, end: dec.InputOffset()})
		}
		break
	}
	if open < 0 {
		return nil, false, errors.New(`it has no "roles" object`)
	}
	for _, m := range members {
		if m.key == key {
			return data, false, nil
		}
	}
	quoted, _ := json.Marshal(key)
	roleJSON, _ := json.Marshal(role)
	if len(members) == 0 {
		// {} → {\n<indent>"key": "role"\n<outer indent>}
		lineStart := bytes.LastIndexByte(data[:open], '\n') + 1
		outer := leadingSpace(data[lineStart:])
		entry := "\n" + outer + "  " + string(quoted) + ": " + string(roleJSON) + "\n" + outer
		closeAt := skipSpace(data, open)
		return splice(data, open, closeAt, entry), true, nil
	}
	first := members[0]
	lineStart := bytes.LastIndexByte(data[:first.start], '\n') + 1
	indent := string(data[lineStart:first.start])
	if strings.TrimSpace(indent) != "" {
		indent = " " // one-line object
	}
	sep := separator(data, first)
	entry := string(quoted) + sep + string(roleJSON)

	sorted := true
	for i := 1; i < len(members); i++ {
		sorted = sorted && members[i-1].key <= members[i].key
	}
	after := len(members) - 1
	if sorted {
		after = -1
		for i, m := range members {
			if m.key < key {
				after = i
			}
		}
	}
	if after < 0 {
		// before the first member
		return splice(data, first.start, first.start, entry+","+newlineOr(indent)+indent), true, nil
	}
	at := members[after].end
	return splice(data, at, at, ","+newlineOr(indent)+indent+entry), true, nil
}

// separator is the text between a member's key and its value (`": "` in most files).
func separator(data []byte, m member) string {
	i := bytes.IndexByte(data[m.start+1:], '"') // end of the key string (keys here have no escapes)
	if i < 0 {
		return ": "
	}
	rest := data[m.start+1+int64(i)+1 : m.end]
	j := bytes.IndexByte(rest, ':')
	if j < 0 {
		return ": "
	}
	k := j + 1
	for k < len(rest) && (rest[k] == ' ' || rest[k] == '\t') {
		k++
	}
	return string(rest[:k])
}

func newlineOr(indent string) string {
	if indent == " " {
		return ""
	}
	return "\n"
}

func skipSpace(data []byte, at int64) int64 {
	for at < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[at]) >= 0 {
		at++
	}
	return at
}

func leadingSpace(b []byte) string {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return string(b[:i])
}

func splice(data []byte, from, to int64, insert string) []byte {
	out := make([]byte, 0, len(data)+len(insert))
	out = append(out, data[:from]...)
	out = append(out, insert...)
	return append(out, data[to:]...)
}

// skipValue consumes one JSON value from dec.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err == io.EOF {
			return errors.New("the role map ends too early")
		}
		if err != nil {
			return fmt.Errorf("the role map is not valid JSON: %v", err)
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
