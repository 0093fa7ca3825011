package heartbeat

import "flinklab/runtime/rpc"

// Compile-time checks: the types implement the interfaces the package
// promises.
var (
	_ MainThreadExecutor            = (*rpc.Endpoint)(nil)
	_ HeartbeatManager[int, string] = (*HeartbeatManagerImpl[int, string])(nil)
	_ HeartbeatManager[int, string] = (*HeartbeatManagerSenderImpl[int, string])(nil)
	_ HeartbeatManager[int, string] = NoOpHeartbeatManager[int, string]{}
	_ HeartbeatTarget[string]       = HeartbeatSender[string](nil)
	_ HeartbeatTarget[string]       = HeartbeatReceiver[string](nil)
)
