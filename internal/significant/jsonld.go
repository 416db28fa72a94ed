package significant

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
)

// jsonHash is a JSON-LD script's hash as data: the order of an object's
// keys and the white space do not count, every value does (numbers by
// their text). A script that is not JSON counts by its text, its white
// space collapsed.
func jsonHash(raw []byte) uint64 {
	if h, ok := fastJSONHash(raw); ok {
		return h
	}
	return decodedJSONHash(raw)
}

// decodedJSONHash is jsonHash through encoding/json: the rule, for any
// script (fastJSONHash is the same for those it reads).
func decodedJSONHash(raw []byte) uint64 {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		var t textBuf
		t.add(raw)
		return sum(t.b) ^ seedData
	}
	h := hashJSON(seedData, v)
	// JSON-LD is one value; anything after it counts as text.
	if rest := bytes.TrimSpace(raw[d.InputOffset():]); len(rest) > 0 {
		h = mix(h, sum(rest))
	}
	return h
}

func hashJSON(h uint64, v any) uint64 {
	switch v := v.(type) {
	case nil:
		return mix(h, 1)
	case bool:
		if v {
			return mix(h, 2)
		}
		return mix(h, 3)
	case json.Number:
		return mix(mix(h, 4), sum([]byte(v)))
	case string:
		return mix(mix(h, 5), sum([]byte(v)))
	case []any:
		h = mix(h, 6)
		for _, e := range v {
			h = hashJSON(h, e)
		}
		return mix(h, uint64(len(v)))
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		h = mix(h, 7)
		for _, k := range keys {
			h = hashJSON(mix(h, sum([]byte(k))), v[k])
		}
		return mix(h, uint64(len(v)))
	}
	return mix(h, math.MaxUint64)
}
