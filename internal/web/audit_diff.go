package web

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"

	"fieldbrief/views"
)

// auditChanges lists what an audit entry changed, one line per leaf field
// ("briefing.schedule_local_time": "07:00" → "09:45"), so the log reads as
// a diff rather than two whole documents. Objects are compared key by key;
// arrays and scalars are compared whole. A value absent on one side (a
// creation, a removed field) is shown as "—".
func auditChanges(oldRaw, newRaw json.RawMessage) []views.AuditChange {
	old, hasOld := decodeJSON(oldRaw)
	neu, hasNew := decodeJSON(newRaw)
	var out []views.AuditChange
	diffJSON("", old, hasOld, neu, hasNew, &out)
	return out
}

func diffJSON(path string, a any, hasA bool, b any, hasB bool, out *[]views.AuditChange) {
	am, aObj := a.(map[string]any)
	bm, bObj := b.(map[string]any)
	if (aObj || !hasA) && (bObj || !hasB) && (hasA || hasB) {
		keys := slices.Collect(maps.Keys(am))
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			av, ak := am[k]
			bv, bk := bm[k]
			diffJSON(joinPath(path, k), av, ak, bv, bk, out)
		}
		return
	}
	if hasA == hasB && reflect.DeepEqual(a, b) {
		return
	}
	*out = append(*out, views.AuditChange{Field: path, Old: jsonValue(a, hasA), New: jsonValue(b, hasB)})
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// decodeJSON reads a stored audit value; absent (NULL, empty) is ok=false.
// Numbers stay json.Number so they print as stored.
func decodeJSON(raw json.RawMessage) (v any, ok bool) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return string(raw), true // not JSON: show the text as it is
	}
	return v, true
}

// jsonValue is a value as compact JSON, "—" when absent. Array items are
// separated by ", " so a long list can wrap between them.
func jsonValue(v any, ok bool) string {
	if !ok {
		return "—"
	}
	if items, isArray := v.([]any); isArray {
		parts := make([]string, len(items))
		for i, item := range items {
			parts[i] = jsonValue(item, true)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "?"
	}
	return string(bytes.TrimSpace(buf.Bytes()))
}
