package jsregexp

import (
	"strings"
	"unicode"
)

func isIDStart(r rune) bool {
	return r == '$' || r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)
}

func isIDPart(r rune) bool {
	return isIDStart(r) || r == 0x200C || r == 0x200D || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)
}

func isHighSurrogate(r rune) bool { return r >= 0xD800 && r <= 0xDBFF }
func isLowSurrogate(r rune) bool  { return r >= 0xDC00 && r <= 0xDFFF }

// IsLineTerminator reports ECMAScript's LineTerminator characters (what "." does not match).
func IsLineTerminator(r rune) bool { return r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029 }

// IsSpace reports ECMAScript's WhiteSpace and LineTerminator characters: what \s matches and
// what String.prototype.trim and Number() take as space.
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

func isWordChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
}

// isWordCharUnicodeIgnoreCase is WordCharacters with both the u and the i flag: the basic word
// characters and the two characters whose simple case folding is one (ſ folds to s, the
// Kelvin sign to k).
func isWordCharUnicodeIgnoreCase(r rune) bool {
	return isWordChar(r) || r == 0x017F || r == 0x212A
}

// unicodeProperty resolves the name inside \p{…} as ECMAScript defines the names.
func unicodeProperty(name string) (func(rune) bool, bool) {
	if key, value, ok := strings.Cut(name, "="); ok {
		switch key {
		case "General_Category", "gc":
			return generalCategory(value)
		case "Script", "sc", "Script_Extensions", "scx":
			// Go has no Script_Extensions data; the Script property stands in for it.
			if t := scriptTable(value); t != nil {
				return func(r rune) bool { return unicode.Is(t, r) }, true
			}
		}
		return nil, false
	}
	if f, ok := generalCategory(name); ok {
		return f, true
	}
	return binaryProperty(name)
}

var categoryAliases = map[string]string{
	"Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
	"Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M",
	"Combining_Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
	"Number": "N", "Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
	"Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
	"Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
	"Final_Punctuation": "Pf", "Other_Punctuation": "Po", "Symbol": "S", "Math_Symbol": "Sm",
	"Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Separator": "Z",
	"Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Other": "C",
	"Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co",
	"Unassigned": "Cn",
}

func generalCategory(v string) (func(rune) bool, bool) {
	if long, ok := categoryAliases[v]; ok {
		v = long
	}
	switch v {
	case "LC":
		return func(r rune) bool { return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt) }, true
	case "Cn":
		return isUnassigned, true
	case "C":
		return func(r rune) bool { return unicode.Is(unicode.C, r) || isUnassigned(r) }, true
	}
	if t, ok := unicode.Categories[v]; ok {
		return func(r rune) bool { return unicode.Is(t, r) }, true
	}
	return nil, false
}

func isUnassigned(r rune) bool {
	for _, t := range unicode.Categories {
		if unicode.Is(t, r) {
			return false
		}
	}
	return true
}

// scriptCodes maps ISO 15924 codes to the script names Go's tables use.
var scriptCodes = map[string]string{
	"Adlm": "Adlam", "Arab": "Arabic", "Armn": "Armenian", "Beng": "Bengali", "Bopo": "Bopomofo",
	"Brai": "Braille", "Cher": "Cherokee", "Copt": "Coptic", "Qaac": "Coptic", "Cyrl": "Cyrillic",
	"Deva": "Devanagari", "Ethi": "Ethiopic", "Geor": "Georgian", "Goth": "Gothic", "Grek": "Greek",
	"Gujr": "Gujarati", "Guru": "Gurmukhi", "Hang": "Hangul", "Hani": "Han", "Hebr": "Hebrew",
	"Hira": "Hiragana", "Kana": "Katakana", "Khmr": "Khmer", "Knda": "Kannada", "Laoo": "Lao",
	"Latn": "Latin", "Mlym": "Malayalam", "Mong": "Mongolian", "Mymr": "Myanmar", "Ogam": "Ogham",
	"Orya": "Oriya", "Runr": "Runic", "Sinh": "Sinhala", "Syrc": "Syriac", "Taml": "Tamil",
	"Telu": "Telugu", "Thaa": "Thaana", "Thai": "Thai", "Tibt": "Tibetan", "Zinh": "Inherited",
	"Qaai": "Inherited", "Zyyy": "Common", "Zzzz": "Unknown", "Yiii": "Yi", "Tfng": "Tifinagh",
	"Tglg": "Tagalog", "Cans": "Canadian_Aboriginal", "Vaii": "Vai", "Bali": "Balinese",
	"Java": "Javanese", "Nkoo": "Nko", "Olck": "Ol_Chiki", "Sund": "Sundanese", "Lana": "Tai_Tham",
	"Tavt": "Tai_Viet", "Cham": "Cham", "Bamu": "Bamum", "Glag": "Glagolitic", "Xsux": "Cuneiform",
	"Egyp": "Egyptian_Hieroglyphs", "Linb": "Linear_B", "Phnx": "Phoenician", "Samr": "Samaritan",
}

func scriptTable(v string) *unicode.RangeTable {
	if long, ok := scriptCodes[v]; ok {
		v = long
	}
	if v == "Unknown" {
		return nil
	}
	return unicode.Scripts[v]
}

var binaryAliases = map[string]string{
	"AHex": "ASCII_Hex_Digit", "Alpha": "Alphabetic", "Bidi_C": "Bidi_Control", "Bidi_M": "Bidi_Mirrored",
	"CI": "Case_Ignorable", "CWCF": "Changes_When_Casefolded", "CWCM": "Changes_When_Casemapped",
	"CWKCF": "Changes_When_NFKC_Casefolded", "CWL": "Changes_When_Lowercased",
	"CWT": "Changes_When_Titlecased", "CWU": "Changes_When_Uppercased", "DI": "Default_Ignorable_Code_Point",
	"Dep": "Deprecated", "Dia": "Diacritic", "EBase": "Emoji_Modifier_Base", "EComp": "Emoji_Component",
	"EMod": "Emoji_Modifier", "EPres": "Emoji_Presentation", "Ext": "Extender", "ExtPict": "Extended_Pictographic",
	"Gr_Base": "Grapheme_Base", "Gr_Ext": "Grapheme_Extend", "Hex": "Hex_Digit", "IDC": "ID_Continue",
	"IDS": "ID_Start", "IDSB": "IDS_Binary_Operator", "IDST": "IDS_Trinary_Operator", "Ideo": "Ideographic",
	"Join_C": "Join_Control", "LOE": "Logical_Order_Exception", "Lower": "Lowercase", "NChar": "Noncharacter_Code_Point",
	"Pat_Syn": "Pattern_Syntax", "Pat_WS": "Pattern_White_Space", "QMark": "Quotation_Mark", "RI": "Regional_Indicator",
	"SD": "Soft_Dotted", "STerm": "Sentence_Terminal", "Term": "Terminal_Punctuation", "UIdeo": "Unified_Ideograph",
	"Upper": "Uppercase", "VS": "Variation_Selector", "space": "White_Space", "XIDC": "XID_Continue", "XIDS": "XID_Start",
}

// binaryProperty resolves ECMAScript's binary Unicode properties. Those Go's tables hold or
// derive are exact; Go has no data for the emoji properties, Bidi_Mirrored,
// Case_Ignorable and the NFKC ones, which are approximated (the pattern still compiles, as
// it does in V8).
func binaryProperty(name string) (func(rune) bool, bool) {
	if long, ok := binaryAliases[name]; ok {
		name = long
	}
	is := func(ts ...*unicode.RangeTable) func(rune) bool {
		return func(r rune) bool { return unicode.In(r, ts...) }
	}
	alpha := func(r rune) bool {
		return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo, unicode.Nl, unicode.Other_Alphabetic)
	}
	idStart := func(r rune) bool {
		return (unicode.In(r, unicode.L, unicode.Nl, unicode.Other_ID_Start)) && !unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
	}
	idCont := func(r rune) bool {
		return (idStart(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)) && !unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
	}
	lower := func(r rune) bool { return unicode.In(r, unicode.Ll, unicode.Other_Lowercase) }
	upper := func(r rune) bool { return unicode.In(r, unicode.Lu, unicode.Other_Uppercase) }
	emoji := func(r rune) bool {
		return r >= 0x1F000 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF || r == 0x00A9 || r == 0x00AE
	}
	switch name {
	case "Any":
		return func(rune) bool { return true }, true
	case "ASCII":
		return func(r rune) bool { return r < 0x80 }, true
	case "Assigned":
		return func(r rune) bool { return !isUnassigned(r) }, true
	case "Alphabetic":
		return alpha, true
	case "Lowercase":
		return lower, true
	case "Uppercase":
		return upper, true
	case "Cased":
		return func(r rune) bool { return lower(r) || upper(r) || unicode.Is(unicode.Lt, r) }, true
	case "Math":
		return is(unicode.Sm, unicode.Other_Math), true
	case "ID_Start", "XID_Start":
		return idStart, true
	case "ID_Continue", "XID_Continue":
		return idCont, true
	case "Grapheme_Extend":
		return is(unicode.Me, unicode.Mn, unicode.Other_Grapheme_Extend), true
	case "Grapheme_Base":
		return func(r rune) bool {
			return !isUnassigned(r) && !unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Co, unicode.Zl, unicode.Zp, unicode.Me, unicode.Mn, unicode.Other_Grapheme_Extend)
		}, true
	case "Default_Ignorable_Code_Point":
		return func(r rune) bool {
			return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Variation_Selector, r) ||
				(unicode.Is(unicode.Cf, r) && !unicode.Is(unicode.Prepended_Concatenation_Mark, r) && r != 0x0600 && r != 0xFFF9 && r != 0xFFFA && r != 0xFFFB)
		}, true
	case "Changes_When_Lowercased":
		return func(r rune) bool { return unicode.ToLower(r) != r }, true
	case "Changes_When_Uppercased":
		return func(r rune) bool { return unicode.ToUpper(r) != r }, true
	case "Changes_When_Titlecased":
		return func(r rune) bool { return unicode.ToTitle(r) != r }, true
	case "Changes_When_Casefolded", "Changes_When_NFKC_Casefolded":
		return func(r rune) bool { return unicode.SimpleFold(r) != r && unicode.ToLower(r) != r }, true
	case "Changes_When_Casemapped":
		return func(r rune) bool {
			return unicode.ToLower(r) != r || unicode.ToUpper(r) != r || unicode.ToTitle(r) != r
		}, true
	case "Case_Ignorable":
		return is(unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk), true
	case "Bidi_Mirrored":
		return func(r rune) bool { return strings.ContainsRune("()<>[]{}«»", r) }, true
	case "Emoji", "Emoji_Presentation", "Extended_Pictographic", "Emoji_Modifier_Base":
		return emoji, true
	case "Emoji_Modifier":
		return func(r rune) bool { return r >= 0x1F3FB && r <= 0x1F3FF }, true
	case "Emoji_Component":
		return func(r rune) bool {
			return r == '#' || r == '*' || r >= '0' && r <= '9' || r == 0x200D || r == 0x20E3 || r == 0xFE0F ||
				r >= 0x1F1E6 && r <= 0x1F1FF || r >= 0x1F3FB && r <= 0x1F3FF || r >= 0xE0020 && r <= 0xE007F
		}, true
	}
	if t, ok := unicode.Properties[name]; ok && !strings.HasPrefix(name, "Other_") && name != "Hyphen" && name != "Prepended_Concatenation_Mark" {
		return func(r rune) bool { return unicode.Is(t, r) }, true
	}
	return nil, false
}
