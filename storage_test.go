package redimo

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The storage layer (storage.go) is the only code of the package that
// calls DynamoDB: commands build requests and go through store's methods.
// api.go and db.go are DynamoDBAPI layers under it (metrics, databases).
func TestOnlyStoreCallsDynamoDB(t *testing.T) {
	call := regexp.MustCompile(`\.(db|DynamoDBAPI)\.(GetItem|PutItem|UpdateItem|DeleteItem|Query|Scan|BatchGetItem|BatchWriteItem|TransactWriteItems|TransactGetItems|DescribeTable|CreateTable)\(`)
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var seen int
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		n := len(call.FindAll(src, -1))
		switch f {
		case "storage.go":
			seen += n
		case "api.go", "db.go":
		default:
			require.Zero(t, n, "%s calls DynamoDB directly: go through store (storage.go)", f)
		}
	}
	require.Positive(t, seen, "the pattern finds storage.go's calls")
}
