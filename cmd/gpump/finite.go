package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
)

// JSON has no NaN or infinity. The results' policy: a number that is not
// finite (a gap that overflows float64 on a game of entries near ±1.8e308,
// a loss of a diverged gan run) is written as null, like "step" always
// was, and the rest of the result as usual: a result is never lost to its
// encoding. encodeJSON applies it.

// encodeJSON encodes v as JSON with enc's settings, writing non-finite
// numbers as null.
func encodeJSON(v any, indent bool) ([]byte, error) {
	enc := func(v any) ([]byte, error) {
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		if indent {
			e.SetIndent("", "  ")
		}
		err := e.Encode(v)
		return b.Bytes(), err
	}
	b, err := enc(v)
	var ue *json.UnsupportedValueError
	if errors.As(err, &ue) {
		b, err = enc(finiteValue(reflect.ValueOf(v)))
	}
	return b, err
}

// finiteValue is v as encoding/json sees it, with every non-finite float
// replaced by nil; structs become objects that keep their fields' order.
func finiteValue(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Invalid:
		return nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return finiteValue(v.Elem())
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return v.Interface()
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = finiteValue(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() || v.Type().Key().Kind() != reflect.String {
			return v.Interface()
		}
		out := map[string]any{}
		for it := v.MapRange(); it.Next(); {
			out[it.Key().String()] = finiteValue(it.Value())
		}
		return out
	case reflect.Struct:
		if v.Type().Implements(reflect.TypeFor[json.Marshaler]()) {
			return v.Interface()
		}
		var o orderedObject
		o.add(v)
		return o
	}
	return v.Interface()
}

// orderedObject is a JSON object whose keys keep the struct's order.
type orderedObject []struct {
	key string
	val any
}

// add adds the fields of the struct v as encoding/json would: json tags,
// omitempty, embedded structs inlined.
func (o *orderedObject) add(v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if f.Anonymous && name == "" {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			if fv.Kind() == reflect.Struct {
				o.add(fv)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(","+opts+",", ",omitempty,") && fv.IsZero() && fv.Kind() != reflect.Struct {
			continue
		}
		*o = append(*o, struct {
			key string
			val any
		}{name, finiteValue(fv)})
	}
}

// MarshalJSON implements json.Marshaler.
func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	b.WriteByte('{')
	for k, kv := range o {
		if k > 0 {
			b.WriteByte(',')
		}
		if err := e.Encode(kv.key); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := e.Encode(kv.val); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
