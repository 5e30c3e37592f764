package redimo

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The storage layer (internal/store) is the only code of the package that
// calls DynamoDB: commands build requests and go through the Store's methods.
// api.go and db.go are DynamoDBAPI layers under it (metrics, databases).
func TestOnlyStoreCallsDynamoDB(t *testing.T) {
	call := regexp.MustCompile(`\.(db|DB|DynamoDBAPI)\.(GetItem|PutItem|UpdateItem|DeleteItem|Query|Scan|BatchGetItem|BatchWriteItem|TransactWriteItems|TransactGetItems|DescribeTable|CreateTable)\(`)
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	files = append(files, "internal/store/store.go")
	var seen int
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		n := len(call.FindAll(src, -1))
		switch f {
		case "internal/store/store.go":
			seen += n
		case "api.go", "db.go":
		default:
			require.Zero(t, n, "%s calls DynamoDB directly: go through the store (internal/store)", f)
		}
	}
	require.Positive(t, seen, "the pattern finds the store's calls")
}
