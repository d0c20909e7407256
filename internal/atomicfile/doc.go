// Package atomicfile writes gopsim's output files so that a reader never
// sees half of one: every result, schedule, report and table goes through
// Write.
//
// Write decides by what the path names:
//
//   - nothing, or a regular file: the bytes go to a temporary file in the
//     same directory, which is fsynced, renamed over the path, and the
//     directory fsynced. An error or a signal leaves the old file as it
//     was. A replaced file keeps its permission bits; a new one gets 0666
//     less the umask.
//   - a symbolic link to a regular file: the file the link points to is
//     replaced as above (in its own directory); the link stays a link.
//   - a character device or a FIFO, directly or through a link
//     (-o /dev/stdout, -o /dev/null, a named pipe): the bytes are written
//     through, in order, and nothing is renamed or created.
//   - anything else (a directory, a block device, a socket, a dangling
//     link): an error wrapping ErrTarget, and nothing is written.
//
// Temporary files are named ".NAME.tmp.PID.RANDOM@HOST", NAME being the
// output's name. A process ended by a signal it cannot catch (kill -9, a
// crash, a power cut) leaves its temporary file behind; the next Write to
// the same output removes those whose process, on this host, is gone.
// Commands that end on SIGINT, SIGTERM or SIGHUP call RemoveTemporaries
// first, so that an interrupted run leaves nothing.
//
// Example:
//
//	err := atomicfile.Write("out.csv", func(w io.Writer) error {
//		_, err := io.WriteString(w, "a,b\n1,2\n")
//		return err
//	})
package atomicfile
