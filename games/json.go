package games

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
)

// An Encoder writes JSON values to an output stream, one a line, as
// encoding/json's does, with '<', '>' and '&' left as they are (they occur
// in dtypes and messages).
//
// JSON has no NaN or infinity. The policy of gpump's outputs: a number
// that is not finite (a gap that overflows float64 on a game of entries
// near ±1.8e308, a loss of a diverged gan run) is written as null, like
// "step" always was, and the rest of the value as usual: a result is never
// lost to its encoding. A Decoder reads such a null back as NaN.
type Encoder struct {
	w      io.Writer
	indent bool
}

// NewEncoder returns an encoder writing to w.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{w: w} }

// SetIndent makes the encoder indent each value by two spaces a level, as
// `gpump solve` prints a result.
func (e *Encoder) SetIndent(on bool) { e.indent = on }

// Encode writes v (a *Report, a *Line or any value encoding/json takes),
// followed by a newline, in one write.
func (e *Encoder) Encode(v any) error {
	b, err := Marshal(v, e.indent)
	if err != nil {
		return err
	}
	_, err = e.w.Write(b)
	return err
}

// Marshal is Encode's encoding of v, newline included.
func Marshal(v any, indent bool) ([]byte, error) {
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
	key   string
	val   any
	depth int
}

// add adds the fields of the struct v as encoding/json would: json tags,
// omitempty, embedded structs inlined, and of two fields of one name the
// shallower (a Line's status over its Report's).
func (o *orderedObject) add(v reflect.Value) { o.addAt(v, 0) }

func (o *orderedObject) addAt(v reflect.Value, depth int) {
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
				o.addAt(fv, depth+1)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(","+opts+",", ",omitempty,") && fv.IsZero() && fv.Kind() != reflect.Struct {
			continue
		}
		o.put(name, finiteValue(fv), depth)
	}
}

// put sets key to val unless a shallower field holds it.
func (o *orderedObject) put(key string, val any, depth int) {
	for k := range *o {
		if e := &(*o)[k]; e.key == key {
			if depth < e.depth {
				e.val, e.depth = val, depth
			}
			return
		}
	}
	*o = append(*o, struct {
		key   string
		val   any
		depth int
	}{key, val, depth})
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

// finiteOrNil is x, or nil (JSON null) when x is not finite.
func finiteOrNil(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

// A Decoder reads JSON values from an input stream: the results of
// `gpump solve -o` (a Report) or the lines of `gpump batch` (a Line). A
// null where a float64 field is (a number the Encoder could not write) is
// read as NaN.
type Decoder struct {
	d *json.Decoder
}

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader) *Decoder { return &Decoder{d: json.NewDecoder(r)} }

// Decode reads the next value into v, a pointer.
func (d *Decoder) Decode(v any) error {
	var raw json.RawMessage
	if err := d.d.Decode(&raw); err != nil {
		return err
	}
	return Unmarshal(raw, v)
}

// Unmarshal is Decode of the one value data holds.
func Unmarshal(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return nil // not an object: no fields to restore
	}
	restoreNaN(reflect.ValueOf(v), fields)
	return nil
}

// restoreNaN sets the float64 fields of the struct v points to whose JSON
// value in fields is null to NaN, walking embedded structs as
// encoding/json does.
func restoreNaN(v reflect.Value, fields map[string]json.RawMessage) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		fv := v.Field(i)
		if f.Anonymous && name == "" {
			restoreNaN(fv, fields)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if raw, ok := fields[name]; ok && f.IsExported() && fv.Kind() == reflect.Float64 && string(bytes.TrimSpace(raw)) == "null" {
			fv.SetFloat(math.NaN())
		}
	}
}
