package streaming

import (
	"crypto/sha256"
	"strconv"

	"flinklab/runtime/api"
)

// OperatorIDOf returns the OperatorID of a node: the one its state is kept
// under in checkpoints and savepoints. It must come out the same each time
// the same program is planned, on the client and in every task, or no
// state could be found again: it depends only on the node's uid (Uid, when
// the program set one) or otherwise on the node's ID and name, which the
// program's structure fixes.
//
// Flink's StreamGraphHasherV2 does the same with a murmur3 hash of the uid,
// or of the node's position in the topology. Differs from Flink: the hash
// function (SHA-256, cut to 16 bytes), so an OperatorID of flinklab is not
// the one Flink would give the same program.
func OperatorIDOf(node *StreamNode) api.OperatorID {
	input := "uid:" + node.Uid
	if node.Uid == "" {
		input = "node:" + strconv.Itoa(node.ID) + ":" + node.OperatorName
	}
	sum := sha256.Sum256([]byte(input))
	return api.OperatorIDFromBytes([16]byte(sum[:16]))
}
