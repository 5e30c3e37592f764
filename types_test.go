package redimo

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNoStringOptionParameters: no method of the public API takes an option
// of a named string type as a parameter, where an untyped string constant
// (a key or a member written one place too early, as in
// SExpire(ctx, key, d, "carol")) would compile and fail at run time. Options
// in argument structs are named fields and may stay strings.
func TestNoStringOptionParameters(t *testing.T) {
	allowed := map[reflect.Type]bool{}
	for _, typ := range []reflect.Type{reflect.TypeFor[*Client](), reflect.TypeFor[Pipeliner](), reflect.TypeFor[*Pipeline](),
		reflect.TypeFor[*ShardedSet](), reflect.TypeFor[*ExpiringSet](), reflect.TypeFor[*RateLimiter]()} {
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			for j := range m.Type.NumIn() {
				p := m.Type.In(j)
				if p.Kind() == reflect.Slice && m.Type.IsVariadic() && j == m.Type.NumIn()-1 {
					p = p.Elem()
				}
				if p.Kind() != reflect.String || p.Name() == "string" || allowed[p] {
					continue
				}
				t.Errorf("%v.%s takes a %v, which an untyped string constant converts to", typ, m.Name, p)
			}
		}
	}
}

func TestExpireConditionString(t *testing.T) {
	for cond, want := range map[ExpireCondition]string{ExpireAlways: "", ExpireNX: "NX", ExpireXX: "XX", ExpireGT: "GT",
		ExpireLT: "LT", ExpireXXLT: "XX LT", 99: "ExpireCondition(99)"} {
		require.Equal(t, want, cond.String())
	}
}
