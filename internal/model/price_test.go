package model

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

func TestPricedBatchRead(t *testing.T) {
	small := Item{"pk": &types.AttributeValueMemberB{Value: []byte("k")}}
	big := Item{"pk": &types.AttributeValueMemberB{Value: make([]byte, 5000)}}
	for _, tc := range []struct {
		name       string
		consistent *bool
		keys       int
		items      []Item
		want       float64
	}{
		{"all found, eventually consistent", nil, 2, []Item{small, small}, 1},
		{"one of two missing", nil, 2, []Item{small}, 1},
		{"all missing", nil, 3, nil, 1.5},
		{"all missing, strongly consistent", aws.Bool(true), 3, nil, 3},
		{"an item over 4 KB and a missing one, strongly consistent", aws.Bool(true), 2, []Item{big}, 3},
		{"no keys", nil, 0, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, PricedBatchRead(tc.consistent, tc.keys, tc.items))
		})
	}
}
