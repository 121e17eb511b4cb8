package schema

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plaios/plaios/internal/jsregexp"
)

// formatDef is one format of ajv-formats 3.0.1 in its default "full" mode, written from
// dist/formats.js: the same regular expressions (run by the JavaScript engine of this
// package, with their flags) and the same functions.
type formatDef struct {
	typ      string // the data type it checks: "string" or "number"
	always   bool   // `true` in ajv-formats: known, never checked
	validate func(any) bool
	compare  func(a, b string) (float64, bool) // for formatMaximum & co; false: undefined
}

var formats = map[string]*formatDef{
	"date":                      {typ: "string", validate: str(dateFormat), compare: compareStrings},
	"time":                      {typ: "string", validate: str(timeFormat(true)), compare: compareTime},
	"date-time":                 {typ: "string", validate: str(dateTimeFormat(true)), compare: compareDateTime},
	"iso-time":                  {typ: "string", validate: str(timeFormat(false)), compare: compareIsoTime},
	"iso-date-time":             {typ: "string", validate: str(dateTimeFormat(false)), compare: compareIsoDateTime},
	"duration":                  {typ: "string", validate: re(`^P(?!$)((\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)$`, "")},
	"uri":                       {typ: "string", validate: str(uriFormat)},
	"uri-reference":             {typ: "string", validate: re(uriReferenceRE, "i")},
	"uri-template":              {typ: "string", validate: re(`^(?:(?:[^\x00-\x20"'<>%\\^`+"`"+`{|}]|%[0-9a-f]{2})|\{[+#./;?&=,!@|]?(?:[a-z0-9_]|%[0-9a-f]{2})+(?::[1-9][0-9]{0,3}|\*)?(?:,(?:[a-z0-9_]|%[0-9a-f]{2})+(?::[1-9][0-9]{0,3}|\*)?)*\})*$`, "i")},
	"url":                       {typ: "string", validate: re(urlRE, "iu")},
	"email":                     {typ: "string", validate: re(`^[a-z0-9!#$%&'*+/=?^_`+"`"+`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`+"`"+`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$`, "i")},
	"hostname":                  {typ: "string", validate: re(`^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$`, "i")},
	"ipv4":                      {typ: "string", validate: re(`^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$`, "")},
	"ipv6":                      {typ: "string", validate: re(ipv6RE, "i")},
	"regex":                     {typ: "string", validate: str(regexFormat)},
	"uuid":                      {typ: "string", validate: re(`^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$`, "i")},
	"json-pointer":              {typ: "string", validate: re(`^(?:\/(?:[^~/]|~0|~1)*)*$`, "")},
	"json-pointer-uri-fragment": {typ: "string", validate: re(`^#(?:\/(?:[a-z0-9_\-.!$&'()*+,;:=@]|%[0-9a-f]{2}|~0|~1)*)*$`, "i")},
	"relative-json-pointer":     {typ: "string", validate: re(`^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$`, "")},
	"byte":                      {typ: "string", validate: re(`^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`, "gm")},
	"int32": {typ: "number", validate: func(v any) bool {
		f := v.(float64)
		return f == math.Trunc(f) && !math.IsInf(f, 0) && f <= math.MaxInt32 && f >= math.MinInt32
	}},
	"int64":    {typ: "number", validate: func(v any) bool { f := v.(float64); return f == math.Trunc(f) && !math.IsInf(f, 0) }},
	"float":    {typ: "number", validate: func(any) bool { return true }},
	"double":   {typ: "number", validate: func(any) bool { return true }},
	"password": {typ: "string", always: true},
	"binary":   {typ: "string", always: true},
}

const uriReferenceRE = `^(?:[a-z][a-z0-9+\-.]*:)?(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'"()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*)?(?:\?(?:[a-z0-9\-._~!$&'"()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'"()*+,;=:@/?]|%[0-9a-f]{2})*)?$`

const uriRE = `^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$`

const urlRE = `^(?:https?|ftp):\/\/(?:\S+(?::\S*)?@)?(?:(?!(?:10|127)(?:\.\d{1,3}){3})(?!(?:169\.254|192\.168)(?:\.\d{1,3}){2})(?!172\.(?:1[6-9]|2\d|3[0-1])(?:\.\d{1,3}){2})(?:[1-9]\d?|1\d\d|2[01]\d|22[0-3])(?:\.(?:1?\d{1,2}|2[0-4]\d|25[0-5])){2}(?:\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))|(?:(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)(?:\.(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)*(?:\.(?:[a-z\u{00a1}-\u{ffff}]{2,})))(?::\d{2,5})?(?:\/[^\s]*)?$`

const ipv6RE = `^((([0-9a-f]{1,4}:){7}([0-9a-f]{1,4}|:))|(([0-9a-f]{1,4}:){6}(:[0-9a-f]{1,4}|((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-9a-f]{1,4}:){5}(((:[0-9a-f]{1,4}){1,2})|:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-9a-f]{1,4}:){4}(((:[0-9a-f]{1,4}){1,3})|((:[0-9a-f]{1,4})?:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){3}(((:[0-9a-f]{1,4}){1,4})|((:[0-9a-f]{1,4}){0,2}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){2}(((:[0-9a-f]{1,4}){1,5})|((:[0-9a-f]{1,4}){0,3}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){1}(((:[0-9a-f]{1,4}){1,6})|((:[0-9a-f]{1,4}){0,4}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(:(((:[0-9a-f]{1,4}){1,7})|((:[0-9a-f]{1,4}){0,5}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:)))$`

// re returns a format check made of one JavaScript regular expression, compiled on first use.
func re(source, flags string) func(any) bool {
	var once sync.Once
	var rx *jsregexp.Regexp
	return func(v any) bool {
		once.Do(func() {
			var err error
			rx, err = jsregexp.Compile(source, flags)
			if err != nil {
				panic("schema: a format's regular expression does not compile: " + err.Error())
			}
		})
		return rx.MatchString(v.(string))
	}
}

func str(f func(string) bool) func(any) bool { return func(v any) bool { return f(v.(string)) } }

var uriRegexp = re(uriRE, "i")

func uriFormat(s string) bool {
	return strings.ContainsAny(s, "/:") && uriRegexp(s)
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isLeapYear(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

var daysIn = [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// dateFormat: /^(\d\d\d\d)-(\d\d)-(\d\d)$/ and a real day of a real month.
func dateFormat(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' || !digits(s[:4]) || !digits(s[5:7]) || !digits(s[8:]) {
		return false
	}
	y, _ := strconv.Atoi(s[:4])
	m, _ := strconv.Atoi(s[5:7])
	d, _ := strconv.Atoi(s[8:])
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	max := daysIn[m]
	if m == 2 && isLeapYear(y) {
		max = 29
	}
	return d <= max
}

type timeParts struct {
	hh, mm, sec  string // sec with its fraction
	tz           string // "", "z", or the offset text
	sign         int
	tzH, tzM     int
	hasTZMinutes bool
}

// parseTime matches /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$/i.
func parseTime(s string) (timeParts, bool) {
	var t timeParts
	if len(s) < 8 || s[2] != ':' || s[5] != ':' || !digits(s[:2]) || !digits(s[3:5]) || !digits(s[6:8]) {
		return t, false
	}
	t.hh, t.mm = s[:2], s[3:5]
	i := 8
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 {
			return t, false
		}
		i = j
	}
	t.sec = s[6:i]
	rest := s[i:]
	t.sign = 1
	switch {
	case rest == "":
	case rest == "z" || rest == "Z":
		t.tz = rest
	case rest[0] == '+' || rest[0] == '-':
		if rest[0] == '-' {
			t.sign = -1
		}
		r := rest[1:]
		if len(r) < 2 || !digits(r[:2]) {
			return t, false
		}
		t.tzH, _ = strconv.Atoi(r[:2])
		r = r[2:]
		if strings.HasPrefix(r, ":") {
			r = r[1:]
			if len(r) != 2 {
				return t, false
			}
		}
		if r != "" {
			if len(r) != 2 || !digits(r) {
				return t, false
			}
			t.tzM, _ = strconv.Atoi(r)
			t.hasTZMinutes = true
		}
		t.tz = rest
	default:
		return t, false
	}
	return t, true
}

func timeFormat(strictTZ bool) func(string) bool {
	return func(s string) bool {
		t, ok := parseTime(s)
		if !ok {
			return false
		}
		hr, _ := strconv.Atoi(t.hh)
		min, _ := strconv.Atoi(t.mm)
		sec, _ := strconv.ParseFloat(t.sec, 64)
		if t.tzH > 23 || t.tzM > 59 || strictTZ && t.tz == "" {
			return false
		}
		if hr <= 23 && min <= 59 && sec < 60 {
			return true
		}
		utcMin := min - t.tzM*t.sign
		utcHr := hr - t.tzH*t.sign
		if utcMin < 0 {
			utcHr--
		}
		return (utcHr == 23 || utcHr == -1) && (utcMin == 59 || utcMin == -1) && sec < 61
	}
}

// dateTimeParts is str.split(/t|\s/i).
func dateTimeParts(s string) []string {
	var parts []string
	start := 0
	for i, r := range s {
		if r == 't' || r == 'T' || jsregexp.IsSpace(r) {
			parts = append(parts, s[start:i])
			start = i + len(string(r))
		}
	}
	return append(parts, s[start:])
}

func dateTimeFormat(strictTZ bool) func(string) bool {
	tf := timeFormat(strictTZ)
	return func(s string) bool {
		p := dateTimeParts(s)
		return len(p) == 2 && dateFormat(p[0]) && tf(p[1])
	}
}

func compareStrings(a, b string) (float64, bool) {
	if a == "" || b == "" {
		return 0, false
	}
	switch {
	case a > b:
		return 1, true
	case a < b:
		return -1, true
	}
	return 0, true
}

// jsDateValue is `new Date(s).valueOf()` for the ISO date-time forms (ECMAScript's Date Time
// String Format and RFC 3339 with a space or a lower-case t/z, which V8 also reads).
func jsDateValue(s string) (float64, bool) {
	p := dateTimeParts(s)
	if len(p) != 2 || !dateFormat(p[0]) {
		return 0, false
	}
	t, ok := parseTime(p[1])
	if !ok || t.tz == "" {
		return 0, false
	}
	hr, _ := strconv.Atoi(t.hh)
	min, _ := strconv.Atoi(t.mm)
	sec, _ := strconv.ParseFloat(t.sec, 64)
	if hr > 24 || min > 59 || sec >= 60 || t.tzH > 23 || t.tzM > 59 {
		return 0, false
	}
	y, _ := strconv.Atoi(p[0][:4])
	mo, _ := strconv.Atoi(p[0][5:7])
	d, _ := strconv.Atoi(p[0][8:])
	base := time.Date(y, time.Month(mo), d, hr, min, 0, 0, time.UTC)
	ms := float64(base.UnixMilli()) + math.Floor(sec*1000+1e-9)
	ms -= float64(t.sign) * float64(t.tzH*60+t.tzM) * 60000
	return ms, true
}

func compareTime(a, b string) (float64, bool) {
	if a == "" || b == "" {
		return 0, false
	}
	t1, ok1 := jsDateValue("2020-01-01T" + a)
	t2, ok2 := jsDateValue("2020-01-01T" + b)
	if !ok1 || !ok2 || t1 == 0 || t2 == 0 {
		return 0, false
	}
	return t1 - t2, true
}

func compareIsoTime(a, b string) (float64, bool) {
	if a == "" || b == "" {
		return 0, false
	}
	t1, ok1 := parseTime(a)
	t2, ok2 := parseTime(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	return compareStrings(t1.hh+t1.mm+t1.sec, t2.hh+t2.mm+t2.sec)
}

func compareDateTime(a, b string) (float64, bool) {
	if a == "" || b == "" {
		return 0, false
	}
	d1, ok1 := jsDateValue(a)
	d2, ok2 := jsDateValue(b)
	if !ok1 || !ok2 || d1 == 0 || d2 == 0 {
		return 0, false
	}
	return d1 - d2, true
}

func compareIsoDateTime(a, b string) (float64, bool) {
	if a == "" || b == "" {
		return 0, false
	}
	p1, p2 := dateTimeParts(a), dateTimeParts(b)
	r, ok := compareStrings(p1[0], p2[0])
	if !ok {
		return 0, false
	}
	if r != 0 {
		return r, true
	}
	t1, t2 := "", ""
	if len(p1) > 1 {
		t1 = p1[1]
	}
	if len(p2) > 1 {
		t2 = p2[1]
	}
	return compareTime(t1, t2)
}
