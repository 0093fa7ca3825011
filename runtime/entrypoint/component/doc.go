// Package component builds the three services of a JobManager, the
// ResourceManager, the Dispatcher and the REST endpoint, in one place for
// both kinds of cluster: the MiniCluster (runtime/minicluster) and a
// JobManager process (entrypoint.ClusterEntrypoint) each call Create with
// the cluster services they made, and get back a
// DispatcherResourceManagerComponent that they close when they stop.
//
// It mirrors Flink's org.apache.flink.runtime.entrypoint.component:
// DispatcherResourceManagerComponentFactory#create (implemented by
// DefaultDispatcherResourceManagerComponentFactory) and the
// DispatcherResourceManagerComponent it returns.
//
// # What Flink's factory builds
//
// A JobManager first makes the services every component shares (Flink's
// ClusterEntrypoint#initializeServices, or MiniCluster#start): the RPC
// service, the HA services, the BlobServer, the heartbeat services. Then it
// hands them to create, which builds, in this order:
//
//  1. the REST endpoint (a DispatcherRestEndpoint, from a
//     RestEndpointFactory), started at once: until a Dispatcher leads, it
//     answers "service temporarily unavailable";
//  2. the ResourceManager (from a ResourceManagerFactory: standalone, or
//     an active one for Kubernetes and YARN);
//  3. the DispatcherRunner (from a DispatcherRunnerFactory), which enters
//     the Dispatcher's leader election and, once granted, creates the
//     Dispatcher with the JobGraphStore of the HA services and the
//     factory of its JobManagerRunners;
//  4. then it starts the ResourceManager, and the leader retrievers with
//     which the REST endpoint finds the Dispatcher and the ResourceManager.
//
// Its three factories are what differs between a session cluster and an
// application cluster (SessionRestEndpointFactory and a session
// Dispatcher, or JobRestEndpointFactory and a MiniDispatcher), and between
// a standalone cluster and an active one (the ResourceManagerFactory).
// What they are given is the same for all.
//
// # What Create builds, in which order
//
//  1. the ResourceManager with its SlotManager, which its leader election
//     (standalone or embedded) grants leadership at once;
//  2. the JobGraphStore, a directory of the working directory, and the
//     Dispatcher, whose JobManagerRunners create every JobMaster with the
//     options of Config (jobmaster.CreateJobManagerRunner);
//  3. the REST endpoint, when Config.REST is set ("Starting rest
//     endpoint.", "Rest endpoint listening at …"), in front of the
//     Dispatcher as Deps.RESTDispatcherGateway shows it.
//
// Differs from Flink: the REST endpoint needs the Dispatcher when it is
// made, so it comes last, and a client that reaches it finds everything
// running. Our HA services hold no JobGraphStore yet, so the Dispatcher's
// is a FileJobGraphStore in Config.WorkingDir. Flink's factories are
// objects; here what varies is a value of Config or a function field of
// Deps (RESTDispatcherGateway for an application cluster).
//
// Close stops the component in the reverse order: the REST endpoint, the
// Dispatcher (jobs still running are suspended and give their slots
// back), the ResourceManager. CloseDispatcher stops only the first two,
// for a MiniCluster that closes its TaskExecutors in between.
//
// # Why one place
//
// The MiniCluster and a JobManager process differ in the services they
// pass (an in-process RPC service and embedded leader election, or RPC
// over TCP and standalone HA services) and in the options they read, not
// in how the components fit together. Built here, they cannot drift
// apart: what the MiniCluster runs in a test is what a JobManager process
// runs, and HA services that elect, a second scheduler or an active
// ResourceManager are wired in this package once, for both. The
// TaskManager side has the same one place:
// taskmanagerrunner.StartTaskManager.
//
// The package sits below runtime/entrypoint, as Flink's does, but imports
// nothing of it: the MiniCluster uses it without depending on the code of
// the processes.
package component
