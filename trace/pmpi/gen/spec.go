package main

// The hand-written specification of the MPI functions the tracer wraps.
//
// Each entry gives the function's stable id (it is the function field of
// every record, so an id never changes meaning; a new function takes a new
// id), its name without the MPI_ prefix, how it is recorded (its kind), and
// its C parameter list as in the MPI-3 standard, each parameter optionally
// tagged with its role after a colon. The roles tell the generator which
// argument is the peer, the tag, the count and so on, and how to convert
// it in a Fortran wrapper (where every argument is passed by reference and
// handles are integers):
//
//	count, scount, rcount   element count                  int
//	type, stype, rtype      datatype                       MPI_Datatype
//	peer, source            destination or source rank     int (a rank of comm)
//	tag, stag, rtag         tag                            int
//	root                    root rank                      int (a rank of comm)
//	comm                    communicator                   MPI_Comm
//	counts, scounts, rcounts  per-rank element counts      const int[]
//	sbuf                    send buffer, only compared with MPI_IN_PLACE
//	reqout                  request created by the call    MPI_Request *
//	reqin                   request acted on; the wrapper saves the handle before
//	                        the call, since completing it resets it to MPI_REQUEST_NULL
//	n                       length of the request array    int
//	reqs                    request array (saved like reqin)  MPI_Request[]
//	status, statuses        status(es); MPI_STATUS(ES)_IGNORE is replaced by the
//	                        wrapper's own, since the record needs the source and count
//	index, outcount, indices  which requests completed
//	flag                    the flag output of Test* and Iprobe
//	provided                thread level granted by Init_thread
//	newcomm                 communicator created by the call   MPI_Comm *
//	freecomm                communicator freed by the call     MPI_Comm *
//	dtype                   datatype committed by the call     MPI_Datatype *
//	freetype                datatype freed by the call; the wrapper saves the handle
//	                        before the call, since freeing it sets it to MPI_DATATYPE_NULL
//	errorcode               Abort's code
//	fskip                   absent from the Fortran binding (Init's argc and argv)
//
// Untagged parameters are passed through untouched.

// Kind says how a function is recorded: which runtime helper of
// trace/pmpi/gopsim_pmpi.c turns its arguments into a record, and which
// trace.Class the Go reader reports.
type Kind int

const (
	KInit Kind = iota + 1
	KInitThread
	KFinalize
	KAbort
	KSend     // blocking send
	KIsend    // nonblocking send
	KRecv     // blocking receive
	KIrecv    // nonblocking receive
	KSendrecv // Sendrecv
	KSendrecvReplace
	KWait
	KWaitall
	KWaitany
	KWaitsome
	KTest
	KTestall
	KTestany
	KTestsome
	KIprobe
	KProbe
	KCancel
	KRequestFree
	KBarrier   // (comm)
	KRooted    // Bcast, Reduce: count, type, root
	KReduce    // Allreduce, Scan, Exscan, Reduce_scatter_block: count, type
	KAllgather // Allgather, Alltoall: the block is rcount of rtype
	KAllgatherv
	KGather
	KGatherv
	KScatter
	KScatterv
	KAlltoallv
	KReduceScatter // Reduce_scatter: recvcounts of type
	KCommNew       // a call that creates a communicator
	KCommFree
	KTypeCommit // MPI_Type_commit: the datatype is described (a type record) and its id recorded
	KTypeFree   // MPI_Type_free: the id of the datatype freed
)

// Spec is one MPI function.
type Spec struct {
	ID     int
	Name   string // without the MPI_ prefix, e.g. "Isend"
	Kind   Kind
	Params string // C parameters with roles: "int count:count, MPI_Datatype datatype:type, ..."
	// NB marks the nonblocking collectives: the helper of the blocking
	// form records the sizes and the request is registered too.
	NB bool
}

// Skipped lists functions deliberately not wrapped, with the reason; the
// generator writes them into the generated files' comments.
var Skipped = []struct{ Name, Why string }{
	{"Comm_rank", "a local query: its time counts as computation"},
	{"Comm_size", "a local query: its time counts as computation"},
	{"Wtime", "a local query: its time counts as computation"},
	{"Send_init, Recv_init, Start, Startall", "persistent requests are not tracked yet: their completions carry request id 0"},
	{"Mprobe, Improbe, Mrecv, Imrecv", "matched probes are not recorded yet"},
	{"Comm_idup, Intercomm_create, Comm_create_group, Dist_graph_create", "communicators they create are registered when first used, with an id local to the rank"},
	{"Type_contiguous, Type_vector, Type_create_hvector, Type_indexed, Type_create_hindexed, Type_create_indexed_block, Type_create_struct, Type_create_subarray, Type_create_resized, Type_dup and the other datatype constructors",
		"local: their time counts as computation; MPI_Type_commit (or the first call that uses a datatype) records the datatype's constructor and arguments, from MPI_Type_get_envelope and MPI_Type_get_contents"},
}

// Specs is the table of wrapped functions, by id.
var Specs = []Spec{
	{1, "Init", KInit, "int *argc:fskip, char ***argv:fskip", false},
	{2, "Init_thread", KInitThread, "int *argc:fskip, char ***argv:fskip, int required, int *provided:provided", false},
	{3, "Finalize", KFinalize, "", false},
	{4, "Abort", KAbort, "MPI_Comm comm:comm, int errorcode:errorcode", false},

	{10, "Send", KSend, "const void *buf, int count:count, MPI_Datatype datatype:type, int dest:peer, int tag:tag, MPI_Comm comm:comm", false},
	{11, "Ssend", KSend, "const void *buf, int count:count, MPI_Datatype datatype:type, int dest:peer, int tag:tag, MPI_Comm comm:comm", false},
	{12, "Rsend", KSend, "const void *buf, int count:count, MPI_Datatype datatype:type, int dest:peer, int tag:tag, MPI_Comm comm:comm", false},
	{13, "Bsend", KSend, "const void *buf, int count:count, MPI_Datatype datatype:type, int dest:peer, int tag:tag, MPI_Comm comm:comm", false},
	{14, "Isend", KIsend, "const void *buf, int count:count, MPI_Datatype datatype:type, int dest:peer, int tag:tag, MPI_Comm comm:comm, MPI_Request *request:reqout", false},
	{15, "Issend", KIsend, "const void *buf, int count:count, MPI_Datatype datatype:type, int dest:peer, int tag:tag, MPI_Comm comm:comm, MPI_Request *request:reqout", false},
	{16, "Ibsend", KIsend, "const void *buf, int count:count, MPI_Datatype datatype:type, int dest:peer, int tag:tag, MPI_Comm comm:comm, MPI_Request *request:reqout", false},
	{17, "Irsend", KIsend, "const void *buf, int count:count, MPI_Datatype datatype:type, int dest:peer, int tag:tag, MPI_Comm comm:comm, MPI_Request *request:reqout", false},
	{18, "Recv", KRecv, "void *buf, int count:count, MPI_Datatype datatype:type, int source:source, int tag:tag, MPI_Comm comm:comm, MPI_Status *status:status", false},
	{19, "Irecv", KIrecv, "void *buf, int count:count, MPI_Datatype datatype:type, int source:source, int tag:tag, MPI_Comm comm:comm, MPI_Request *request:reqout", false},
	{20, "Sendrecv", KSendrecv, "const void *sendbuf, int sendcount:scount, MPI_Datatype sendtype:stype, int dest:peer, int sendtag:stag, " +
		"void *recvbuf, int recvcount:rcount, MPI_Datatype recvtype:rtype, int source:source, int recvtag:rtag, MPI_Comm comm:comm, MPI_Status *status:status", false},
	{21, "Sendrecv_replace", KSendrecvReplace, "void *buf, int count:count, MPI_Datatype datatype:type, int dest:peer, int sendtag:stag, " +
		"int source:source, int recvtag:rtag, MPI_Comm comm:comm, MPI_Status *status:status", false},

	{30, "Wait", KWait, "MPI_Request *request:reqin, MPI_Status *status:status", false},
	{31, "Waitall", KWaitall, "int count:n, MPI_Request array_of_requests[]:reqs, MPI_Status array_of_statuses[]:statuses", false},
	{32, "Waitany", KWaitany, "int count:n, MPI_Request array_of_requests[]:reqs, int *index:index, MPI_Status *status:status", false},
	{33, "Waitsome", KWaitsome, "int incount:n, MPI_Request array_of_requests[]:reqs, int *outcount:outcount, int array_of_indices[]:indices, MPI_Status array_of_statuses[]:statuses", false},
	{34, "Test", KTest, "MPI_Request *request:reqin, int *flag:flag, MPI_Status *status:status", false},
	{35, "Testall", KTestall, "int count:n, MPI_Request array_of_requests[]:reqs, int *flag:flag, MPI_Status array_of_statuses[]:statuses", false},
	{36, "Testany", KTestany, "int count:n, MPI_Request array_of_requests[]:reqs, int *index:index, int *flag:flag, MPI_Status *status:status", false},
	{37, "Testsome", KTestsome, "int incount:n, MPI_Request array_of_requests[]:reqs, int *outcount:outcount, int array_of_indices[]:indices, MPI_Status array_of_statuses[]:statuses", false},
	{38, "Iprobe", KIprobe, "int source:source, int tag:tag, MPI_Comm comm:comm, int *flag:flag, MPI_Status *status:status", false},
	{39, "Probe", KProbe, "int source:source, int tag:tag, MPI_Comm comm:comm, MPI_Status *status:status", false},
	{40, "Cancel", KCancel, "MPI_Request *request:reqin", false},
	{41, "Request_free", KRequestFree, "MPI_Request *request:reqin", false},

	{50, "Barrier", KBarrier, "MPI_Comm comm:comm", false},
	{51, "Bcast", KRooted, "void *buffer, int count:count, MPI_Datatype datatype:type, int root:root, MPI_Comm comm:comm", false},
	{52, "Reduce", KRooted, "const void *sendbuf, void *recvbuf, int count:count, MPI_Datatype datatype:type, MPI_Op op, int root:root, MPI_Comm comm:comm", false},
	{53, "Allreduce", KReduce, "const void *sendbuf, void *recvbuf, int count:count, MPI_Datatype datatype:type, MPI_Op op, MPI_Comm comm:comm", false},
	{54, "Allgather", KAllgather, "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount:rcount, MPI_Datatype recvtype:rtype, MPI_Comm comm:comm", false},
	{55, "Allgatherv", KAllgatherv, "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[]:rcounts, const int displs[], MPI_Datatype recvtype:rtype, MPI_Comm comm:comm", false},
	{56, "Gather", KGather, "const void *sendbuf, int sendcount:scount, MPI_Datatype sendtype:stype, void *recvbuf, int recvcount:rcount, MPI_Datatype recvtype:rtype, int root:root, MPI_Comm comm:comm", false},
	{57, "Gatherv", KGatherv, "const void *sendbuf, int sendcount:scount, MPI_Datatype sendtype:stype, void *recvbuf, const int recvcounts[]:rcounts, const int displs[], MPI_Datatype recvtype:rtype, int root:root, MPI_Comm comm:comm", false},
	{58, "Scatter", KScatter, "const void *sendbuf, int sendcount:scount, MPI_Datatype sendtype:stype, void *recvbuf, int recvcount:rcount, MPI_Datatype recvtype:rtype, int root:root, MPI_Comm comm:comm", false},
	{59, "Scatterv", KScatterv, "const void *sendbuf, const int sendcounts[]:scounts, const int displs[], MPI_Datatype sendtype:stype, void *recvbuf, int recvcount:rcount, MPI_Datatype recvtype:rtype, int root:root, MPI_Comm comm:comm", false},
	{60, "Alltoall", KAllgather, "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount:rcount, MPI_Datatype recvtype:rtype, MPI_Comm comm:comm", false},
	{61, "Alltoallv", KAlltoallv, "const void *sendbuf:sbuf, const int sendcounts[]:scounts, const int sdispls[], MPI_Datatype sendtype:stype, " +
		"void *recvbuf, const int recvcounts[]:rcounts, const int rdispls[], MPI_Datatype recvtype:rtype, MPI_Comm comm:comm", false},
	{62, "Reduce_scatter", KReduceScatter, "const void *sendbuf, void *recvbuf, const int recvcounts[]:rcounts, MPI_Datatype datatype:type, MPI_Op op, MPI_Comm comm:comm", false},
	{63, "Reduce_scatter_block", KReduce, "const void *sendbuf, void *recvbuf, int recvcount:count, MPI_Datatype datatype:type, MPI_Op op, MPI_Comm comm:comm", false},
	{64, "Scan", KReduce, "const void *sendbuf, void *recvbuf, int count:count, MPI_Datatype datatype:type, MPI_Op op, MPI_Comm comm:comm", false},
	{65, "Exscan", KReduce, "const void *sendbuf, void *recvbuf, int count:count, MPI_Datatype datatype:type, MPI_Op op, MPI_Comm comm:comm", false},

	{70, "Ibarrier", KBarrier, "MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{71, "Ibcast", KRooted, "void *buffer, int count:count, MPI_Datatype datatype:type, int root:root, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{72, "Iallreduce", KReduce, "const void *sendbuf, void *recvbuf, int count:count, MPI_Datatype datatype:type, MPI_Op op, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{73, "Ialltoall", KAllgather, "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount:rcount, MPI_Datatype recvtype:rtype, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{74, "Ireduce", KRooted, "const void *sendbuf, void *recvbuf, int count:count, MPI_Datatype datatype:type, MPI_Op op, int root:root, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{75, "Iallgather", KAllgather, "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount:rcount, MPI_Datatype recvtype:rtype, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{76, "Iallgatherv", KAllgatherv, "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[]:rcounts, const int displs[], MPI_Datatype recvtype:rtype, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{77, "Igather", KGather, "const void *sendbuf, int sendcount:scount, MPI_Datatype sendtype:stype, void *recvbuf, int recvcount:rcount, MPI_Datatype recvtype:rtype, int root:root, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{78, "Igatherv", KGatherv, "const void *sendbuf, int sendcount:scount, MPI_Datatype sendtype:stype, void *recvbuf, const int recvcounts[]:rcounts, const int displs[], MPI_Datatype recvtype:rtype, int root:root, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{79, "Iscatter", KScatter, "const void *sendbuf, int sendcount:scount, MPI_Datatype sendtype:stype, void *recvbuf, int recvcount:rcount, MPI_Datatype recvtype:rtype, int root:root, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{100, "Iscatterv", KScatterv, "const void *sendbuf, const int sendcounts[]:scounts, const int displs[], MPI_Datatype sendtype:stype, void *recvbuf, int recvcount:rcount, MPI_Datatype recvtype:rtype, int root:root, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{101, "Ialltoallv", KAlltoallv, "const void *sendbuf:sbuf, const int sendcounts[]:scounts, const int sdispls[], MPI_Datatype sendtype:stype, " +
		"void *recvbuf, const int recvcounts[]:rcounts, const int rdispls[], MPI_Datatype recvtype:rtype, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{102, "Ireduce_scatter", KReduceScatter, "const void *sendbuf, void *recvbuf, const int recvcounts[]:rcounts, MPI_Datatype datatype:type, MPI_Op op, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{103, "Ireduce_scatter_block", KReduce, "const void *sendbuf, void *recvbuf, int recvcount:count, MPI_Datatype datatype:type, MPI_Op op, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{104, "Iscan", KReduce, "const void *sendbuf, void *recvbuf, int count:count, MPI_Datatype datatype:type, MPI_Op op, MPI_Comm comm:comm, MPI_Request *request:reqout", true},
	{105, "Iexscan", KReduce, "const void *sendbuf, void *recvbuf, int count:count, MPI_Datatype datatype:type, MPI_Op op, MPI_Comm comm:comm, MPI_Request *request:reqout", true},

	{80, "Comm_dup", KCommNew, "MPI_Comm comm:comm, MPI_Comm *newcomm:newcomm", false},
	{81, "Comm_split", KCommNew, "MPI_Comm comm:comm, int color, int key, MPI_Comm *newcomm:newcomm", false},
	{82, "Comm_create", KCommNew, "MPI_Comm comm:comm, MPI_Group group, MPI_Comm *newcomm:newcomm", false},
	{83, "Cart_create", KCommNew, "MPI_Comm comm_old:comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart:newcomm", false},
	{84, "Comm_free", KCommFree, "MPI_Comm *comm:freecomm", false},
	{85, "Comm_split_type", KCommNew, "MPI_Comm comm:comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm:newcomm", false},
	{86, "Cart_sub", KCommNew, "MPI_Comm comm:comm, const int remain_dims[], MPI_Comm *newcomm:newcomm", false},

	{90, "Type_commit", KTypeCommit, "MPI_Datatype *datatype:dtype", false},
	{91, "Type_free", KTypeFree, "MPI_Datatype *datatype:freetype", false},
}
