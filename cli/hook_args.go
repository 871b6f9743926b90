package cli

import (
	"os"
	"reflect"
	"strings"
	"unicode"
)

// hookCommand is a hook command's struct (StopHookCmd, StartHookCmd).
type hookCommand interface{ Run(env *Env) error }

// parseHookArgs is Kong's parse of a hook command line (see hookFields)
// done without Kong, for the lines installers write: only the command's
// own long flags, as --name value or --name=value, each flag taking its
// value from its env variable when absent. ok is false for any other
// command line (--help, short or unknown flags, arguments, --, a value that
// looks like a flag), which Kong then parses as before.
//
// Hooks run at every stop or start of an agent and their fast paths take
// about two milliseconds; building Kong's model by reflection and
// interpolating its help texts would add a tenth of that (BENCHMARKS.md).
// The flags stay defined once, by the command's fields and tags, read here
// by reflection; a test checks that this parse and Kong's agree.
func parseHookArgs(args []string) (cmd hookCommand, ok bool) {
	return parseHookArgsEnv(args, os.LookupEnv)
}

// parseHookArgsEnv is parseHookArgs reading the flags' env variables with
// lookup.
func parseHookArgsEnv(args []string, lookup func(string) (string, bool)) (cmd hookCommand, ok bool) {
	if !isHook(args) {
		return nil, false
	}
	field, _ := reflect.TypeOf(CLI{}).FieldByName(hookFields[args[0]])
	ptr := reflect.New(field.Type)
	if !setFlags(ptr.Elem(), args[1:], lookup) {
		return nil, false
	}
	cmd, ok = ptr.Interface().(hookCommand)
	return cmd, ok
}

// setFlags sets the fields of the struct v from args and the fields' env
// variables, as Kong would, and reports whether it could: only string
// fields without default or short name, and only long flags with a value.
func setFlags(v reflect.Value, args []string, lookup func(string) (string, bool)) bool {
	fields := map[string]reflect.Value{}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Type.Kind() != reflect.String || f.Tag.Get("default") != "" || f.Tag.Get("short") != "" {
			return false // a kind of flag this parse does not know
		}
		name := f.Tag.Get("name")
		if name == "" {
			name = kebab(f.Name)
		}
		fields[name] = v.Field(i)
		if env := f.Tag.Get("env"); env != "" {
			if val, set := lookup(env); set {
				v.Field(i).SetString(val)
			}
		}
	}
	for i := 0; i < len(args); i++ {
		name, ok := strings.CutPrefix(args[i], "--")
		if !ok || name == "" {
			return false
		}
		name, val, hasVal := strings.Cut(name, "=")
		if !hasVal {
			if i+1 == len(args) || strings.HasPrefix(args[i+1], "-") {
				return false
			}
			i++
			val = args[i]
		}
		field, known := fields[name]
		if !known {
			return false
		}
		field.SetString(val)
	}
	return true
}

// kebab is Kong's default flag name for a field name made of words
// (StdinTimeout: stdin-timeout).
func kebab(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
