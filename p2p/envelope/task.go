package envelope

import (
	"fmt"

	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/crypto"
)

// TaskKind is the kind of a manager-signed crawl task: the payload is the
// task's JSON encoding (task.Task.Encode).
var TaskKind = Kind{
	Domain:      "hivecrawl-task",
	PayloadType: []byte("/hivecrawl/task/json/1"),
}

// Seal signs t with the manager's key.
func Seal(t *task.Task, key crypto.PrivKey) ([]byte, error) {
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("seal task %s: %w", t.ID, err)
	}
	payload, err := t.Encode()
	if err != nil {
		return nil, err
	}
	return SealRecord(TaskKind, payload, key)
}

// Open verifies that b is a task signed by the manager's key and returns
// the validated task (task.Decode).
func Open(b []byte, manager crypto.PubKey) (*task.Task, error) {
	return OpenRecord(b, TaskKind, manager, task.Decode)
}
