// Package client holds the client side of a job: the job jar. It mirrors
// the jar half of Flink's org.apache.flink.client.program.PackagedProgram
// (the other half, running the program's main method to get a JobGraph,
// belongs to the streaming package, behind rest.ProgramRunner).
//
// # What a job jar is
//
// In Flink you package your job as a jar: your classes, their libraries
// and resources, and a manifest that names the class whose main method
// builds the job. You upload the jar to the cluster (POST /jars/upload),
// then ask the cluster to run it (POST /jars/:jarid/run). The cluster opens
// the jar as a PackagedProgram, finds the entry class in the manifest,
// runs main, and submits the JobGraph that main built, together with the
// jar: every TaskExecutor later downloads the jar to load your operators.
//
// A flinklab job jar is a zip of the same shape:
//
//	META-INF/MANIFEST.MF      Manifest-Version: 1.0
//	                          Created-By: flinklab
//	                          Program-Class: wordcount
//	wordcount/hamlet.txt      a resource the program reads
//
// WriteJar builds one; OpenPackagedProgram (from a file) and
// ReadPackagedProgram (from memory) open one and answer ProgramClass,
// Resources and Resource.
//
// # The manifest
//
// The manifest follows the JAR File Specification, which Java's
// java.util.jar.Manifest implements: "Name: value" headers, one per line;
// lines end in CRLF, LF or CR and hold at most 72 bytes, so a longer value
// continues on the next line after a single leading space; a blank line
// ends the main section, and per-entry sections ("Name: some/entry") may
// follow. Header names are case-insensitive, which is why Flink's
// "program-class" and our "Program-Class" are the same header. Headers we
// do not know are ignored.
//
// # Opening a jar safely
//
// A jar comes from whoever can reach the REST port, so opening one must be
// safe whatever the bytes are (FuzzReadPackagedProgram checks that it never
// panics):
//
//   - Zip slip: an entry named "../../etc/cron.d/x" or "/etc/passwd" would
//     write outside the target directory of anything that unpacks the jar.
//     Such names are refused, as are backslashes and unclean paths, so a
//     resource name is always a plain relative path.
//
//   - Zip bomb: a few kilobytes of deflated zeros can claim gigabytes. The
//     entries' declared sizes are summed first, and then every entry is
//     decompressed once against a budget of MaxUncompressedSize (256 MiB)
//     that counts the bytes really produced, not the sizes the headers
//     claim. Decompressing also verifies each entry's CRC-32, so a damaged
//     jar is refused when it is opened, not when a task reads it.
//
//   - Too many entries: archive/zip keeps a few hundred bytes for every
//     entry of the central directory, which it reads whole. CheckJarFile,
//     which checks a jar from its file as the REST endpoint receives it,
//     stops reading a central directory past MaxJarDirectorySize (1 MiB),
//     and every check refuses more than MaxJarEntries (10,000) entries
//     and a manifest over MaxManifestSize (64 KiB). So checking any jar
//     takes a few megabytes at most, whatever its size on disk.
//
// Errors caused by the content match ErrInvalidJar (and ErrJarTooLarge for
// the size bound); the REST layer answers them with 400 Bad Request.
// Messages use Flink's words where Flink has them: "No manifest found in
// jar file '…'. The manifest is need to point to the program's main class."
// (sic) and, adapted, "No 'Program-Class' entry was found in the jar file."
//
// # Talking to a cluster
//
// RestClusterClient is Flink's RestClusterClient: it uploads and runs
// jars, submits JobGraphs, and takes savepoints. A savepoint is an
// asynchronous operation of the REST API: TriggerSavepoint (POST
// /jobs/{jobid}/savepoints) and StopWithSavepoint (POST /jobs/{jobid}/stop)
// get a trigger ID, then ask GET /jobs/{jobid}/savepoints/{triggerid}
// after 10 ms, twice as long each time, at most every 2 s, until the
// operation is COMPLETED, as Flink's client polls; a savepoint that failed
// comes back as a *SavepointFailure, Flink's SerializedThrowable.
//
// # Differs from Flink
//
//   - Go has no classes to load from a jar. Program-Class names a program
//     that registered itself by name in the program registry (the streaming
//     package), together with its user functions; the jar carries the
//     program's resources and its identity, not its code. A jar naming a
//     program nobody registered fails at run time, as an unknown class
//     fails in Flink with ClassNotFoundException.
//   - Flink reads "program-class" and falls back to "Main-Class", and may
//     list several classes separated by commas. We read Program-Class only,
//     and its whole value is one program name, without surrounding spaces;
//     a name with a character that is not printable (a control character,
//     a byte order mark) is refused.
//   - Flink opens a jar lazily and finds a damaged entry only when a class
//     is loaded from it. We check every entry when the jar is opened.
//   - Java ignores a manifest's last line when it has no line break; we
//     accept it.
//   - There are no nested lib/*.jar class paths and no jar signatures.
package client
