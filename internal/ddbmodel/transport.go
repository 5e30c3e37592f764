package ddbmodel

// The RoundTripper: one handler per DynamoDB operation.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

type transport struct {
	m    *Model
	next http.RoundTripper
}

// call is one request on its way through the model.
type call struct {
	r    *http.Request
	op   string // "TransactWriteItems", ...
	body []byte
}

// action is one read or write of an item as the requests carry it: the
// body of GetItem/PutItem/UpdateItem/DeleteItem, or one element of a
// transaction.
type action struct {
	TableName                 string
	Key                       item
	Item                      item
	UpdateExpression          string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues item
	ConsistentRead            bool
}

// RoundTrip models the request and forwards it to DynamoDB Local when the
// model lets it through.
func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	target := r.Header.Get("X-Amz-Target")
	c := &call{r: r, op: target[strings.LastIndex(target, ".")+1:]}
	if r.Body != nil {
		var err error
		c.body, err = io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	switch c.op {
	case "TransactWriteItems":
		return t.transactWrite(c)
	case "TransactGetItems":
		return t.transactGet(c)
	case "PutItem", "UpdateItem", "DeleteItem":
		return t.singleWrite(c)
	case "GetItem":
		return t.getItem(c)
	case "BatchGetItem":
		return t.batchGet(c)
	case "Query":
		return t.query(c)
	case "Scan":
		return t.passThrough(c, t.m.cfg.ReadLatency)
	case "BatchWriteItem":
		return t.passThrough(c, t.m.cfg.WriteLatency)
	case "DescribeTable", "CreateTable":
		resp, err := t.forward(c, c.body)
		if err == nil && resp.StatusCode == http.StatusOK {
			t.learnSchema(resp)
		}
		return resp, err
	}
	return t.forward(c, c.body)
}

// forward sends c to DynamoDB Local with body.
func (t *transport) forward(c *call, body []byte) (*http.Response, error) {
	r := c.r.Clone(c.r.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return t.next.RoundTrip(r)
}

// wait sleeps for a latency drawn around mean, or until the request is
// cancelled.
func (t *transport) wait(c *call, mean time.Duration) error {
	d := t.m.latency(mean)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-c.r.Context().Done():
		return c.r.Context().Err()
	case <-timer.C:
		return nil
	}
}

func (t *transport) passThrough(c *call, latency time.Duration) (*http.Response, error) {
	t.m.countLocked(c.op, func(o *OpStats) { o.Requests++ })
	if err := t.wait(c, latency); err != nil {
		return nil, err
	}
	return t.forward(c, c.body)
}

// transactWrite models TransactWriteItems.
//
// Conflicts: "An item within a TransactWriteItems request is part of another
// ongoing TransactWriteItems request ... If any item-level request within
// TransactWriteItems or TransactGetItems is rejected, the request fails with
// a TransactionCanceledException"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling).
// A transaction is ongoing from its arrival to the end of its modelled
// latency; then it is forwarded to DynamoDB Local, which applies it (Local
// runs the requests of a table one at a time, so its queueing under load,
// which real DynamoDB's partitions do not share, is not counted as time in
// flight). The items it
// shares with an ongoing transaction get the cancellation reason
// TransactionConflict, the others None: "Transaction cancellation reasons are
// ordered in the order of requested items, if an item has no error it will
// have None code" (API reference of TransactionCanceledException,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html).
//
// Capacity: "Transactional write requests require 2 write request units to
// perform one write for items up to 1 KB"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.ReadWriteCapacityMode.html).
// When a partition's budget cannot pay for its items, the transaction is
// cancelled with reason ThrottlingError on those items: "Throttling Error:
// Code: ThrottlingError ... This message is returned when writes get
// throttled on an On-Demand table" (same API reference). Condition checks
// are charged as writes of their key. A cancelled transaction consumes
// nothing; one that reaches DynamoDB Local is charged even when its
// conditions fail there.
func (t *transport) transactWrite(c *call) (*http.Response, error) {
	var in struct{ TransactItems []map[string]*action }
	if err := json.Unmarshal(c.body, &in); err != nil {
		return t.forward(c, c.body) // DynamoDB Local reports what is wrong
	}
	type txItem struct {
		id, partition string
		wcu           float64
		sc            *schema
	}
	items := make([]txItem, len(in.TransactItems))
	for i, ti := range in.TransactItems {
		for kind, a := range ti {
			sc, err := t.schema(c, a.TableName)
			if err != nil {
				return nil, err
			}
			key, wcu := sc.write(kind, a)
			items[i] = txItem{id: sc.itemID(key), partition: sc.partitionID(key[sc.hash]), sc: sc, wcu: 2 * wcu}
		}
	}

	m := t.m
	now := time.Now()
	need := map[string]float64{}
	for _, it := range items {
		need[it.partition] += it.wcu
	}
	m.mu.Lock()
	reasons, failed := m.admitTx(c.op, len(items), func(i int) bool {
		f := m.inflight[items[i].id]
		return f != nil && f.tx > 0
	}, func(i int) bool {
		b := m.bucket('w', items[i].partition, now)
		return b.tokens < min(need[items[i].partition], b.max)
	})
	if failed == "" {
		for p, w := range need {
			if !m.cfg.NoThrottling {
				m.bucket('w', p, now).tokens -= w
			}
			m.count(c.op, func(o *OpStats) { o.WCU += w })
		}
		for _, it := range items {
			m.flight(it.id).tx++
		}
	}
	m.mu.Unlock()

	err := t.wait(c, m.cfg.TransactLatency)
	if failed == "" {
		m.mu.Lock()
		for _, it := range items {
			m.land(it.id, func(f *flight) { f.tx-- })
		}
		m.mu.Unlock()
	}
	if err != nil {
		return nil, err
	}
	if failed != "" {
		return cancelled(c, reasons), nil
	}
	return t.forward(c, c.body)
}

// admitTx decides, under m.mu, whether a transaction of n items goes
// ahead, and counts the request and its outcome: an item that busy says
// is in another transaction cancels it with TransactionConflict (unless
// conflicts are off), else an item that short says lacks capacity cancels
// it with ThrottlingError (unless throttling is off). failed is "",
// "conflict" or "throttle"; reasons are the cancellation reasons by item.
func (m *Model) admitTx(op string, n int, busy, short func(i int) bool) (reasons []map[string]string, failed string) {
	m.count(op, func(o *OpStats) { o.Requests++ })
	reasons = make([]map[string]string, n)
	for i := range n {
		if !m.cfg.NoConflicts && busy(i) {
			reasons[i], failed = map[string]string{"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"}, "conflict"
		}
	}
	if failed == "" && !m.cfg.NoThrottling {
		for i := range n {
			if short(i) {
				reasons[i], failed = map[string]string{"Code": "ThrottlingError", "Message": throttledMessage}, "throttle"
			}
		}
	}
	switch failed {
	case "conflict":
		m.count(op, func(o *OpStats) { o.Conflicts++ })
	case "throttle":
		m.count(op, func(o *OpStats) { o.Throttles++ })
	}
	return reasons, failed
}

// transactGet models TransactGetItems: "An item within a TransactGetItems
// request is part of an ongoing TransactWriteItems, BatchWriteItem, PutItem,
// UpdateItem, or DeleteItem request" is a conflict
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling);
// BatchWriteItem is not tracked. "Transactional read requests require 2
// read request units to perform one read for items up to 4 KB"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.ReadWriteCapacityMode.html):
// the model charges 2 units per item (items up to 4 KB) before reading.
func (t *transport) transactGet(c *call) (*http.Response, error) {
	var in struct{ TransactItems []struct{ Get *action } }
	if err := json.Unmarshal(c.body, &in); err != nil {
		return t.forward(c, c.body)
	}
	m := t.m
	now := time.Now()
	type get struct{ id, partition string }
	gets := make([]get, len(in.TransactItems))
	for i, ti := range in.TransactItems {
		if ti.Get == nil {
			return t.forward(c, c.body)
		}
		sc, err := t.schema(c, ti.Get.TableName)
		if err != nil {
			return nil, err
		}
		gets[i] = get{sc.itemID(ti.Get.Key), sc.partitionID(ti.Get.Key[sc.hash])}
	}
	m.mu.Lock()
	reasons, failed := m.admitTx(c.op, len(gets), func(i int) bool {
		f := m.inflight[gets[i].id]
		return f != nil && f.tx+f.single > 0
	}, func(i int) bool {
		return !m.bucket('r', gets[i].partition, now).canRead()
	})
	if failed == "" {
		for _, g := range gets {
			if !m.cfg.NoThrottling {
				m.bucket('r', g.partition, now).tokens -= 2
			}
			m.count(c.op, func(o *OpStats) { o.RCU += 2 })
		}
	}
	m.mu.Unlock()
	if err := t.wait(c, m.cfg.TransactLatency); err != nil {
		return nil, err
	}
	if failed != "" {
		return cancelled(c, reasons), nil
	}
	return t.forward(c, c.body)
}

// single decodes a one-item request and finds its table's schema. When
// sc is nil the request is answered: forwarded as it is when its body does
// not decode (DynamoDB Local gives the error), or failed with err.
func (t *transport) single(c *call) (a action, sc *schema, resp *http.Response, err error) {
	if json.Unmarshal(c.body, &a) != nil {
		resp, err = t.forward(c, c.body)
		return a, nil, resp, err
	}
	sc, err = t.schema(c, a.TableName)
	return a, sc, nil, err
}

// write is the key of the item a Put, Update or Delete (kind) writes, and
// its write units outside a transaction: one per KB of the item (an
// Update's size approximated by its key and values, see singleWrite) plus
// the local secondary index writes.
func (sc *schema) write(kind string, a *action) (key item, wcu float64) {
	key, size := a.Key, itemSize(a.Key)
	switch kind {
	case "Put":
		key, size = sc.keyOf(a.Item), itemSize(a.Item)
	case "Update":
		size += itemSize(a.ExpressionAttributeValues)
	}
	return key, units(size, 1024) + float64(sc.indexWrites(kind, a))
}

// singleWrite models PutItem, UpdateItem and DeleteItem.
//
// Conflicts: "A PutItem, UpdateItem, or DeleteItem request for an item
// conflicts with an ongoing TransactWriteItems request that includes the
// same item ... When a PutItem, UpdateItem, or DeleteItem request is
// rejected, the request fails with a TransactionConflictException"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling).
//
// Capacity: "One write request unit represents one write for an item up to
// 1 KB in size"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.ReadWriteCapacityMode.html),
// plus the local secondary index writes (schema.indexWrites). The size of an
// UpdateItem is approximated by its key and its values (DynamoDB charges the
// larger of the item before and after, which the model cannot see). Over
// the partition's budget the request fails with
// ProvisionedThroughputExceededException (see throttled).
func (t *transport) singleWrite(c *call) (*http.Response, error) {
	a, sc, resp, err := t.single(c)
	if sc == nil {
		return resp, err
	}
	key, wcu := sc.write(strings.TrimSuffix(c.op, "Item"), &a)
	id, partition := sc.itemID(key), sc.partitionID(key[sc.hash])

	m := t.m
	failed := ""
	m.mu.Lock()
	m.count(c.op, func(o *OpStats) { o.Requests++ })
	if f := m.inflight[id]; !m.cfg.NoConflicts && f != nil && f.tx > 0 {
		failed = "conflict"
		m.count(c.op, func(o *OpStats) { o.Conflicts++ })
	} else if b := m.bucket('w', partition, time.Now()); !m.cfg.NoThrottling && b.tokens < min(wcu, b.max) {
		failed = "throttle"
		m.count(c.op, func(o *OpStats) { o.Throttles++ })
	} else {
		if !m.cfg.NoThrottling {
			b.tokens -= wcu
		}
		m.count(c.op, func(o *OpStats) { o.WCU += wcu })
		m.flight(id).single++
	}
	m.mu.Unlock()
	err = t.wait(c, m.cfg.WriteLatency)
	if failed == "" {
		m.mu.Lock()
		m.land(id, func(f *flight) { f.single-- })
		m.mu.Unlock()
	}
	if err != nil {
		return nil, err
	}
	switch failed {
	case "conflict":
		return errorResponse(c, "TransactionConflictException", "Transaction is ongoing for the item", nil), nil
	case "throttle":
		return throttled(c, sc, "TableWriteKeyRangeThroughputExceeded"), nil
	}
	return t.forward(c, c.body)
}

// admitRead reports whether partition may read now: a read's cost is known
// only from its response, so a read is admitted while the budget holds the
// smallest read (half a unit) and charged afterwards (charge), which may
// overdraw it.
func (m *Model) admitRead(op, partition string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.count(op, func(o *OpStats) { o.Requests++ })
	if m.cfg.NoThrottling || m.bucket('r', partition, time.Now()).canRead() {
		return true
	}
	m.count(op, func(o *OpStats) { o.Throttles++ })
	return false
}

// charge takes rcu from partition's read budget.
func (m *Model) charge(op, partition string, rcu float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.cfg.NoThrottling {
		m.bucket('r', partition, time.Now()).tokens -= rcu
	}
	m.count(op, func(o *OpStats) { o.RCU += rcu })
}

// readUnits is the cost of reading an item of size bytes (0: absent):
// "One read request unit represents one strongly consistent read request,
// or two eventually consistent read requests, for an item up to 4 KB in
// size"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.ReadWriteCapacityMode.html);
// "If you perform a read operation on an item that does not exist, DynamoDB
// still consumes provisioned read throughput: A strongly consistent read
// request consumes one read capacity unit, while an eventually consistent
// read request consumes 0.5 of a read capacity unit"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ProvisionedThroughput.html#ItemSizeCalculations.Reads).
func readUnits(size int, consistent bool) float64 {
	u := units(size, 4096)
	if !consistent {
		u /= 2
	}
	return u
}

// getItem models GetItem. It is never blocked by a transaction: "If an
// ongoing TransactWriteItems or TransactGetItems operation conflicts with a
// concurrent GetItem request, both operations can succeed"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling).
func (t *transport) getItem(c *call) (*http.Response, error) {
	a, sc, resp, err := t.single(c)
	if sc == nil {
		return resp, err
	}
	partition := sc.partitionID(a.Key[sc.hash])
	ok := t.m.admitRead(c.op, partition)
	if err := t.wait(c, t.m.cfg.ReadLatency); err != nil {
		return nil, err
	}
	if !ok {
		return throttled(c, sc, "TableReadKeyRangeThroughputExceeded"), nil
	}
	var out struct{ Item item }
	resp, err = t.forwardJSON(c, c.body, &out)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	size := 0
	if out.Item != nil {
		size = itemSize(out.Item)
	}
	t.m.charge(c.op, partition, readUnits(size, a.ConsistentRead))
	return resp, nil
}

// batchGet models BatchGetItem: each key is read as a GetItem ("BatchGetItem
// invokes GetItem once for each item in the batch",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html#Programming.Errors.BatchOperations),
// and keys of throttled partitions are left out: "If none of the items can
// be processed due to insufficient provisioned throughput on all of the
// tables in the request, then BatchGetItem returns a
// ProvisionedThroughputExceededException. If at least one of the items is
// successfully processed, then BatchGetItem completes successfully, while
// returning the keys of the unread items in UnprocessedKeys"
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html).
func (t *transport) batchGet(c *call) (*http.Response, error) {
	var in map[string]json.RawMessage
	var reqs map[string]map[string]json.RawMessage
	if json.Unmarshal(c.body, &in) != nil || json.Unmarshal(in["RequestItems"], &reqs) != nil {
		return t.forward(c, c.body)
	}
	m := t.m
	now := time.Now()
	unprocessed := map[string]map[string]json.RawMessage{}
	consistent := map[string]bool{}
	schemas := map[string]*schema{}
	left, total := 0, 0
	m.mu.Lock()
	m.count(c.op, func(o *OpStats) { o.Requests++ })
	m.mu.Unlock()
	for table, req := range reqs {
		sc, err := t.schema(c, table)
		if err != nil {
			return nil, err
		}
		schemas[table] = sc
		var keys []item
		if err := json.Unmarshal(req["Keys"], &keys); err != nil {
			return t.forward(c, c.body)
		}
		var cr bool
		_ = json.Unmarshal(req["ConsistentRead"], &cr)
		consistent[table] = cr
		var keep, drop []item
		m.mu.Lock()
		for _, k := range keys {
			if m.cfg.NoThrottling || m.bucket('r', sc.partitionID(k[sc.hash]), now).canRead() {
				keep = append(keep, k)
			} else {
				drop = append(drop, k)
			}
		}
		m.mu.Unlock()
		total += len(keys)
		left += len(drop)
		if len(drop) > 0 {
			u := map[string]json.RawMessage{}
			for f, v := range req {
				u[f] = v
			}
			u["Keys"], _ = json.Marshal(drop)
			unprocessed[table] = u
			if len(keep) == 0 {
				delete(reqs, table)
			} else {
				req["Keys"], _ = json.Marshal(keep)
			}
		}
	}
	if left > 0 {
		m.countLocked(c.op, func(o *OpStats) { o.Throttles++ })
	}
	if err := t.wait(c, m.cfg.ReadLatency); err != nil {
		return nil, err
	}
	if left == total && total > 0 {
		var sc *schema
		for _, s := range schemas {
			sc = s
		}
		return throttled(c, sc, "TableReadKeyRangeThroughputExceeded"), nil
	}
	body := c.body
	if left > 0 {
		in["RequestItems"], _ = json.Marshal(reqs)
		body, _ = json.Marshal(in)
	}
	var out map[string]json.RawMessage
	resp, err := t.forwardJSON(c, body, &out)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	var responses map[string][]item
	_ = json.Unmarshal(out["Responses"], &responses)
	// Found items cost their size; keys not found cost the minimum.
	for table, req := range reqs {
		sc := schemas[table]
		var keys []item
		_ = json.Unmarshal(req["Keys"], &keys)
		found := map[string]int{}
		for _, it := range responses[table] {
			found[sc.itemID(sc.keyOf(it))] = itemSize(it)
		}
		for _, k := range keys {
			m.charge(c.op, sc.partitionID(k[sc.hash]), readUnits(found[sc.itemID(k)], consistent[table]))
		}
	}
	if left > 0 {
		var already map[string]map[string]json.RawMessage
		_ = json.Unmarshal(out["UnprocessedKeys"], &already)
		for table, u := range already {
			if mine, ok := unprocessed[table]; ok {
				var a, b []json.RawMessage
				_ = json.Unmarshal(u["Keys"], &a)
				_ = json.Unmarshal(mine["Keys"], &b)
				mine["Keys"], _ = json.Marshal(append(a, b...))
			} else {
				unprocessed[table] = u
			}
		}
		out["UnprocessedKeys"], _ = json.Marshal(unprocessed)
		setJSON(resp, out)
	}
	return resp, nil
}

// query models Query. Its cost is the read units DynamoDB Local reports
// for it (the model asks for ReturnConsumedCapacity and removes it from the
// answer when the caller did not): "All items returned are treated as a
// single read operation, where DynamoDB computes the total size of all
// items and then rounds up to the next 4 KB boundary"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ProvisionedThroughput.html#ItemSizeCalculations.Reads);
// so it is only as exact as DynamoDB Local's figure (a COUNT query pays for
// the items it counts there too). A query of a local secondary index reads
// the table's partition; a query of a global secondary index is not
// throttled (the model has no GSI partitions).
func (t *transport) query(c *call) (*http.Response, error) {
	var in struct {
		TableName                 string
		IndexName                 string
		KeyConditionExpression    string
		ExpressionAttributeNames  map[string]string
		ExpressionAttributeValues item
		ReturnConsumedCapacity    string
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(c.body, &in) != nil || json.Unmarshal(c.body, &raw) != nil {
		return t.forward(c, c.body)
	}
	sc, err := t.schema(c, in.TableName)
	if err != nil {
		return nil, err
	}
	partition := ""
	if pk := sc.queryPartition(in.KeyConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues); pk != nil && !sc.gsi[in.IndexName] {
		partition = sc.partitionID(pk)
	}
	ok := partition == "" || t.m.admitRead(c.op, partition)
	if partition == "" {
		t.m.countLocked(c.op, func(o *OpStats) { o.Requests++ })
	}
	if err := t.wait(c, t.m.cfg.ReadLatency); err != nil {
		return nil, err
	}
	if !ok {
		return throttled(c, sc, "TableReadKeyRangeThroughputExceeded"), nil
	}
	body, injected := c.body, in.ReturnConsumedCapacity == "" || in.ReturnConsumedCapacity == "NONE"
	if injected {
		raw["ReturnConsumedCapacity"] = json.RawMessage(`"TOTAL"`)
		body, _ = json.Marshal(raw)
	}
	var out map[string]json.RawMessage
	resp, err := t.forwardJSON(c, body, &out)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	var cc struct{ CapacityUnits float64 }
	_ = json.Unmarshal(out["ConsumedCapacity"], &cc)
	if partition != "" {
		t.m.charge(c.op, partition, cc.CapacityUnits)
	} else {
		t.m.countLocked(c.op, func(o *OpStats) { o.RCU += cc.CapacityUnits })
	}
	if injected {
		delete(out, "ConsumedCapacity")
		setJSON(resp, out)
	}
	return resp, nil
}

// flight returns the in-flight record of item id; m.mu must be held.
func (m *Model) flight(id string) *flight {
	f := m.inflight[id]
	if f == nil {
		f = &flight{}
		m.inflight[id] = f
	}
	return f
}

// land applies done to id's record and drops it when nothing is in flight;
// m.mu must be held.
func (m *Model) land(id string, done func(*flight)) {
	if f := m.inflight[id]; f != nil {
		done(f)
		if f.tx <= 0 && f.single <= 0 {
			delete(m.inflight, id)
		}
	}
}

// schema returns table's key schema, asking DynamoDB Local for it (with
// the headers of the request being modelled) the first time it is needed.
func (t *transport) schema(c *call, table string) (*schema, error) {
	t.m.mu.Lock()
	sc := t.m.schemas[table]
	t.m.mu.Unlock()
	if sc != nil {
		return sc, nil
	}
	body, _ := json.Marshal(map[string]string{"TableName": table})
	r := c.r.Clone(c.r.Context())
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.DescribeTable")
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = nil
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, fmt.Errorf("ddbmodel: DescribeTable %s: %w", table, err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, fmt.Errorf("ddbmodel: DescribeTable %s: %s: %s", table, resp.Status, b)
	}
	if sc = t.learnSchema(resp); sc == nil {
		return nil, fmt.Errorf("ddbmodel: DescribeTable %s: no key schema in the answer", table)
	}
	return sc, nil
}

// learnSchema records the table description in a DescribeTable or
// CreateTable answer, and returns it.
func (t *transport) learnSchema(resp *http.Response) *schema {
	var out struct{ Table, TableDescription *tableDescription }
	if readJSON(resp, &out) != nil {
		return nil
	}
	d := out.Table
	if d == nil {
		d = out.TableDescription
	}
	if d == nil || len(d.KeySchema) == 0 {
		return nil
	}
	sc := newSchema(*d)
	t.m.mu.Lock()
	t.m.schemas[sc.table] = sc
	t.m.mu.Unlock()
	return sc
}

// forwardJSON forwards body and, when DynamoDB Local answers 200, decodes
// the answer into v (the body stays readable for the caller).
func (t *transport) forwardJSON(c *call, body []byte, v any) (*http.Response, error) {
	resp, err := t.forward(c, body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	if err := readJSON(resp, v); err != nil {
		return nil, err
	}
	return resp, nil
}

// readJSON decodes resp's body into v and puts the body back for the
// caller.
func readJSON(resp *http.Response, v any) error {
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return err
		}
		if b, err = io.ReadAll(zr); err != nil {
			return err
		}
		resp.Header.Del("Content-Encoding")
	}
	setBody(resp, b)
	return json.Unmarshal(b, v)
}

// setJSON replaces resp's body with v.
func setJSON(resp *http.Response, v any) {
	b, _ := json.Marshal(v)
	setBody(resp, b)
}

func setBody(resp *http.Response, b []byte) {
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
	// DynamoDB's CRC32 of the body no longer matches a rewritten one.
	resp.Header.Del("X-Amz-Crc32")
}

// throttledMessage is what on-demand DynamoDB says when it throttles
// (API reference of TransactionCanceledException, ThrottlingError).
const throttledMessage = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"

// throttled is the answer to a single-item request over its partition's
// budget: ProvisionedThroughputExceededException, whose ThrottlingReasons
// say why: "KeyRangeThroughputExceeded: The request rate directed at a
// specific partition key value has exceeded the internal partition-level
// throughput limits"
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ThrottlingReason.html),
// which applies "in both modes", provisioned and on-demand
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TroubleshootingThrottling.html).
// Not ThrottlingException, which the error table reserves for control-plane
// calls: "This exception might be returned if you perform any of the
// following operations too rapidly: CreateTable, UpdateTable, DeleteTable"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html).
func throttled(c *call, sc *schema, reason string) *http.Response {
	return errorResponse(c, "ProvisionedThroughputExceededException", throttledMessage, map[string]any{
		"ThrottlingReasons": []map[string]string{{"reason": reason, "resource": sc.arn}},
	})
}

// cancelled is a TransactionCanceledException with reasons (nil: None).
func cancelled(c *call, reasons []map[string]string) *http.Response {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		if r == nil {
			reasons[i] = map[string]string{"Code": "None"}
		}
		codes[i] = reasons[i]["Code"]
	}
	msg := "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"
	return errorResponse(c, "TransactionCanceledException", msg, map[string]any{"CancellationReasons": reasons})
}

// errorResponse is DynamoDB's error answer: HTTP 400 with the exception's
// name in __type ("HTTP/1.1 400 Bad Request ...
// {"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",
// "message":...}",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html).
func errorResponse(c *call, typ, msg string, extra map[string]any) *http.Response {
	body := map[string]any{"__type": "com.amazonaws.dynamodb.v20120810#" + typ, "message": msg}
	for k, v := range extra {
		body[k] = v
	}
	b, _ := json.Marshal(body)
	return &http.Response{
		StatusCode: http.StatusBadRequest, Status: "400 Bad Request",
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{
			"Content-Type":     {"application/x-amz-json-1.0"},
			"Content-Length":   {strconv.Itoa(len(b))},
			"X-Amzn-Requestid": {"ddbmodel"},
		},
		Body: io.NopCloser(bytes.NewReader(b)), ContentLength: int64(len(b)),
		Request: c.r,
	}
}
