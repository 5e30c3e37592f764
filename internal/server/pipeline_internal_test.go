package server

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Which consecutive commands may share a run.
func TestRunKeys(t *testing.T) {
	for _, tc := range []struct {
		first, second string
		together      bool
	}{
		{"SADD k a", "SADD j a", true},
		{"SADD k a", "SADD k b c", true},
		{"SADD k a", "SREM k b", true},
		{"ZADD k GT CH 1 a", "ZINCRBY k 2 b", true},
		{"ZADD k 1 a 2 b", "ZREM k c", true},
		{"SADD k a", "SADD k a", false},   // same member: order shows
		{"SADD k a b", "SREM k b", false}, // same member
		{"SADD k a", "ZADD k 1 b", false}, // which type the key gets
		{"SADD k a", "SCARD k", false},    // a read of the whole key
		{"SCARD k", "SADD k a", false},
		{"EXPIRE k 10", "SADD k a", false},
		{"SINTERSTORE d k", "SADD k a", false},
		{"SADD k a", "SMOVE k j a", false},
		{"ZADD k 1", "ZADD k 2 b", false}, // malformed: alone
	} {
		u := runKeys{}
		a, b := strings.Fields(tc.first), strings.Fields(tc.second)
		ka, okA := independentKeys(a)
		if !okA {
			require.False(t, tc.together, "%s alone", tc.first)
			continue
		}
		require.True(t, u.add(a, ka))
		kb, okB := independentKeys(b)
		require.Equal(t, tc.together, okB && u.add(b, kb), "%s | %s", tc.first, tc.second)
	}
}
