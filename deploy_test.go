package redimo

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// The files operators use, deploy/iam-policy.json and
// deploy/cloudformation.yaml, checked against the code.

// iamActions are the IAM actions each DynamoDBAPI operation needs.
// TransactWriteItems has no IAM action of its own: each of its items needs
// the action of its kind (redimo uses all four kinds).
var iamActions = map[string][]string{
	"TransactWriteItems": {"dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:UpdateItem"},
}

// TestDeployPolicy: the policy grants exactly the actions of the
// operations in DynamoDBAPI, on the table and its index, CreateTable in a
// statement of its own (to drop when infrastructure code makes the table).
func TestDeployPolicy(t *testing.T) {
	raw, err := os.ReadFile("deploy/iam-policy.json")
	require.NoError(t, err)
	var policy struct {
		Version   string
		Statement []struct {
			Sid, Effect      string
			Action, Resource []string
		}
	}
	require.NoError(t, json.Unmarshal(raw, &policy))
	require.Equal(t, "2012-10-17", policy.Version)

	var want []string
	api := reflect.TypeOf((*DynamoDBAPI)(nil)).Elem()
	for i := range api.NumMethod() {
		op := api.Method(i).Name
		if op == "CreateTable" {
			continue
		}
		if a, ok := iamActions[op]; ok {
			want = append(want, a...)
		} else {
			want = append(want, "dynamodb:"+op)
		}
	}
	slices.Sort(want)
	want = slices.Compact(want) // UpdateItem: an operation and a transaction item kind
	require.Len(t, policy.Statement, 2)
	cmds, create := policy.Statement[0], policy.Statement[1]
	require.Equal(t, "Allow", cmds.Effect)
	require.Equal(t, want, cmds.Action)
	require.Equal(t, []string{"arn:aws:dynamodb:*:*:table/" + DefaultTableName,
		"arn:aws:dynamodb:*:*:table/" + DefaultTableName + "/index/*"}, cmds.Resource)
	// CreateTable turns TTL on for the items kept for write tokens (gc).
	require.Equal(t, []string{"dynamodb:CreateTable", "dynamodb:UpdateTimeToLive"}, create.Action)
	require.Equal(t, cmds.Resource[:1], create.Resource)

	// The transaction writer (member writes in tx.go, metadata items in
	// internal/model/meta.go) uses exactly the four item kinds named above.
	var src []byte
	for _, f := range []string{"tx.go", "internal/model/meta.go"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		src = append(src, b...)
	}
	for _, kind := range []string{"ConditionCheck", "Delete", "Put", "Update"} {
		require.Contains(t, string(src), "types.TransactWriteItem{"+kind+":", "the writer writes no %s item: drop its action", kind)
	}
}

// TestDeployTemplate: the CloudFormation table is the one CreateTable makes.
func TestDeployTemplate(t *testing.T) {
	raw, err := os.ReadFile("deploy/cloudformation.yaml")
	require.NoError(t, err)
	type key struct {
		AttributeName string `yaml:"AttributeName"`
		KeyType       string `yaml:"KeyType"`
	}
	type index struct {
		IndexName  string `yaml:"IndexName"`
		KeySchema  []key  `yaml:"KeySchema"`
		Projection struct {
			ProjectionType   string   `yaml:"ProjectionType"`
			NonKeyAttributes []string `yaml:"NonKeyAttributes"`
		} `yaml:"Projection"`
	}
	var tmpl struct {
		Parameters struct {
			TableName struct {
				Default string `yaml:"Default"`
			} `yaml:"TableName"`
		} `yaml:"Parameters"`
		Resources struct {
			RedimoTable struct {
				Type       string `yaml:"Type"`
				Properties struct {
					BillingMode          string `yaml:"BillingMode"`
					AttributeDefinitions []struct {
						AttributeName string `yaml:"AttributeName"`
						AttributeType string `yaml:"AttributeType"`
					} `yaml:"AttributeDefinitions"`
					KeySchema               []key `yaml:"KeySchema"`
					TimeToLiveSpecification struct {
						AttributeName string `yaml:"AttributeName"`
						Enabled       bool   `yaml:"Enabled"`
					} `yaml:"TimeToLiveSpecification"`
					LocalSecondaryIndexes  []index `yaml:"LocalSecondaryIndexes"`
					GlobalSecondaryIndexes []index `yaml:"GlobalSecondaryIndexes"`
				} `yaml:"Properties"`
			} `yaml:"RedimoTable"`
		} `yaml:"Resources"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &tmpl))
	require.Equal(t, DefaultTableName, tmpl.Parameters.TableName.Default)
	table := tmpl.Resources.RedimoTable
	require.Equal(t, "AWS::DynamoDB::Table", table.Type)
	require.Equal(t, model.AttrGC, table.Properties.TimeToLiveSpecification.AttributeName, "TTL on the items kept for write tokens")
	require.True(t, table.Properties.TimeToLiveSpecification.Enabled)
	p := table.Properties

	want := NewClient(nil).schema()
	require.Equal(t, string(want.BillingMode), p.BillingMode)
	require.Len(t, p.AttributeDefinitions, len(want.AttributeDefinitions))
	for i, d := range want.AttributeDefinitions {
		require.Equal(t, aws.ToString(d.AttributeName), p.AttributeDefinitions[i].AttributeName)
		require.Equal(t, string(d.AttributeType), p.AttributeDefinitions[i].AttributeType)
	}
	sameKeys := func(want []types.KeySchemaElement, got []key) {
		t.Helper()
		require.Len(t, got, len(want))
		for i, k := range want {
			require.Equal(t, key{aws.ToString(k.AttributeName), string(k.KeyType)}, got[i])
		}
	}
	sameKeys(want.KeySchema, p.KeySchema)
	require.Len(t, p.LocalSecondaryIndexes, len(want.LocalSecondaryIndexes))
	for i, wantIx := range want.LocalSecondaryIndexes {
		ix := p.LocalSecondaryIndexes[i]
		require.Equal(t, aws.ToString(wantIx.IndexName), ix.IndexName)
		sameKeys(wantIx.KeySchema, ix.KeySchema)
		require.Equal(t, string(wantIx.Projection.ProjectionType), ix.Projection.ProjectionType)
		require.Equal(t, wantIx.Projection.NonKeyAttributes, ix.Projection.NonKeyAttributes)
	}
	require.Len(t, p.GlobalSecondaryIndexes, 1)
	gsi, wantGSI := p.GlobalSecondaryIndexes[0], want.GlobalSecondaryIndexes[0]
	require.Equal(t, aws.ToString(wantGSI.IndexName), gsi.IndexName)
	sameKeys(wantGSI.KeySchema, gsi.KeySchema)
	require.Equal(t, string(wantGSI.Projection.ProjectionType), gsi.Projection.ProjectionType)
	require.Equal(t, wantGSI.Projection.NonKeyAttributes, gsi.Projection.NonKeyAttributes)
}
