package redimo

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

func TestCreateTable(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	name := "redimo_ct_" + randomHex(4)
	c := NewClient(testDB, func(o *Options) { o.TableName = name })
	require.NoError(t, c.CreateTable(ctx))
	require.NoError(t, c.CreateTable(ctx), "a no-op when the table exists with the right schema")
	n, err := c.SAdd(ctx, "k", "a")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)

	// A table with another schema is refused, not used.
	other := "redimo_ct_other_" + randomHex(4)
	_, err = testDB.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(other),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
	err = NewClient(testDB, func(o *Options) { o.TableName = other }).CreateTable(ctx)
	require.ErrorIs(t, err, ErrTableMismatch)

	// The right keys but no index under the configured name.
	err = NewClient(testDB, func(o *Options) { o.TableName = name; o.IndexName = "nope" }).CreateTable(ctx)
	require.ErrorIs(t, err, ErrTableMismatch)
}

func TestOptionsDefaults(t *testing.T) {
	o := NewClient(nil).Options()
	require.Equal(t, DefaultTableName, o.TableName)
	require.Equal(t, DefaultIndexName, o.IndexName)
	require.Equal(t, DefaultMaxAttempts, o.MaxAttempts)
	require.Equal(t, DefaultParallelism, o.Parallelism)
	require.False(t, o.EventuallyConsistent)
	require.NotNil(t, o.Now)
}

func TestEventuallyConsistentReads(t *testing.T) {
	ctx, c, _, p := setup(t, func(o *Options) { o.EventuallyConsistent = true })
	_, err := c.SAdd(ctx, p+"k", "a", "b")
	require.NoError(t, err)
	// DynamoDB Local is always consistent; this checks that the requests
	// are accepted with ConsistentRead false, on the table and the index.
	members, err := c.SMembers(ctx, p+"k")
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, members)
	_, err = c.SRandMemberN(ctx, p+"k", 1)
	require.NoError(t, err)
	ok, err := c.SIsMember(ctx, p+"k", "a")
	require.NoError(t, err)
	require.True(t, ok)
}
