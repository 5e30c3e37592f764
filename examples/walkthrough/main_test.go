package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/testenv"
)

// TestWalkthrough runs the walk-through of `make demo` twice against
// DynamoDB Local (a fresh table each time): every step prints its cost,
// no key carries a run suffix, and it ends with a next step.
func TestWalkthrough(t *testing.T) {
	endpoint := testenv.NeedEndpoint(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var first string
	for run := range 2 {
		var out bytes.Buffer
		require.NoError(t, runWalk(ctx, endpoint, &out))
		text := out.String()
		lines := strings.Split(text, "\n")
		cost := regexp.MustCompile(`cost: \d+ requests?, [\d.]+ RCU, [\d.]+ WCU( \(Local reported [\d.]+\))?$`)
		steps := 0
		for i, l := range lines {
			if !strings.HasPrefix(l, "  > ") {
				continue
			}
			steps++
			require.NotContains(t, l, "@", "no run suffix on keys")
			j := i + 1
			for j < len(lines) && !cost.MatchString(lines[j]) && !strings.HasPrefix(lines[j], "  > ") {
				j++
			}
			require.Regexp(t, cost, lines[j], "step %q shows its cost", l)
		}
		require.Greater(t, steps, 50)
		require.Equal(t, 1, strings.Count(text, "reply: error:"), "only the shard-count refusal is an error")
		require.Contains(t, text, "reply: \"allowed=false remaining=0")
		// 1000 new members: 1000 member items and their by_ix entries and 11
		// metadata items, 2 WCU each (price.go).
		require.Regexp(t, `> SADD big member-0000 \.\.\. member-0999\n.*\n    reply: 1000 +cost: 11 requests, 0 RCU, 2022 WCU \(Local reported \d+\)\n`, text)
		require.Regexp(t, `> SCARD big\n.*\n    reply: 1000 +cost: 1 request, 1 RCU, 0 WCU\n`, text)
		require.Regexp(t, `\nNext: [^\n]+\n(.+\n)+DynamoDB Local"\)\.\n$`, text)
		if run == 0 {
			first = text
		} else {
			// Same replies on a second run: the table started empty again.
			replies := regexp.MustCompile(`(?m)^  > (SADD|SCARD|ZCARD|ZREVRANGE|ShardedSet\.Card).*\n(    [^r].*\n)?    reply: .*?  `)
			require.NotEmpty(t, replies.FindAllString(text, -1))
			require.Equal(t, replies.FindAllString(first, -1), replies.FindAllString(text, -1))
		}
	}
}
