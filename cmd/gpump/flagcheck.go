package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// flagError is a flag the command line or a manifest line cannot take: one
// the command does not define (value "") or a value its type cannot hold.
// The flags are checked here, before urfave/cli parses them, so that the
// message names the flag as it was typed and never depends on the wording
// of another package's errors.
type flagError struct {
	typed    string // the flag as typed: -x, --name
	value    string // the bad value; "" for an unknown flag
	why      string // "parse error" or "value out of range"
	duration bool
}

func (e *flagError) Error() string {
	if e.why == "" {
		return "unknown flag " + e.typed
	}
	msg := fmt.Sprintf("invalid value %q for %s: %s", e.value, e.typed, e.why)
	if e.duration {
		msg += " (a duration has a unit: 90s, 5m, 1h30m)"
	}
	return msg
}

// checkFlags checks the flags among args (up to "--" or the first
// argument that is not a flag, as the flag package stops) against flags:
// each must be defined, and a value given must parse as its type.
// --help and -h are always defined.
func checkFlags(flags []cli.Flag, args []string) error {
	byName := map[string]cli.Flag{"help": nil, "h": nil}
	for _, f := range flags {
		for _, n := range f.Names() {
			byName[n] = f
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			return nil
		}
		typed, value, hasValue := strings.Cut(a, "=")
		name := strings.TrimLeft(typed, "-")
		f, ok := byName[name]
		if !ok {
			return &flagError{typed: typed}
		}
		if f == nil {
			continue
		}
		if _, isBool := f.(*cli.BoolFlag); isBool {
			if hasValue {
				if _, err := strconv.ParseBool(value); err != nil {
					return &flagError{typed: typed, value: value, why: "parse error"}
				}
			}
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return nil // urfave/cli says the value is missing
			}
			i++
			value = args[i]
		}
		if err := parseValue(f, value); err != nil {
			why := "parse error"
			if errors.Is(err, strconv.ErrRange) {
				why = "value out of range"
			}
			_, dur := f.(*cli.DurationFlag)
			return &flagError{typed: typed, value: value, why: why, duration: dur}
		}
	}
	return nil
}

// parseValue parses value as the flag package parses a value of f's type.
func parseValue(f cli.Flag, value string) error {
	var err error
	switch f.(type) {
	case *cli.IntFlag:
		_, err = strconv.ParseInt(value, 0, strconv.IntSize)
	case *cli.Uint64Flag:
		_, err = strconv.ParseUint(value, 0, 64)
	case *cli.Float64Flag:
		_, err = strconv.ParseFloat(value, 64)
	case *cli.DurationFlag:
		_, err = time.ParseDuration(value)
	}
	return err
}
