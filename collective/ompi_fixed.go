package collective

// Open MPI's fixed decision rules, written down as data from
// ompi/mca/coll/tuned/coll_tuned_decision_fixed.c (Open MPI tag v4.1.4;
// the file is unchanged in v5.0.0 to v5.0.9), for commutative operations.
// A band {below, cuts} applies to communicators of fewer than below ranks
// (0: all larger ones; 3 stands for the rules' "P == 2"); cuts reads
// "size < cuts[0]: algorithm cuts[1], size < cuts[2]: cuts[3], ..., else
// the last". Sizes are bytes as ompiMeasure computes them; algorithm
// numbers are Open MPI's, named in ompiAlgs.

const (
	kib = 1024
	mib = 1024 * 1024
)

// ompiNames are Open MPI's names of its algorithm numbers per operation
// (the coll_tuned_<op>_algorithm values, as the source lists them).
var ompiNames = map[Op][]string{
	Allreduce:     {"", "basic_linear", "nonoverlapping", "recursive_doubling", "ring", "segmented_ring", "rabenseifner"},
	Alltoall:      {"", "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"},
	Alltoallv:     {"", "basic_linear", "pairwise"},
	Barrier:       {"", "linear", "double_ring", "recursive_doubling", "bruck", "two_proc", "tree"},
	Bcast:         {"", "basic_linear", "chain", "pipeline", "split_binary_tree", "binary_tree", "binomial", "knomial", "scatter_allgather", "scatter_allgather_ring"},
	Reduce:        {"", "linear", "chain", "pipeline", "binary", "binomial", "in-order_binary", "rabenseifner"},
	ReduceScatter: {"", "non-overlapping", "recursive_halving", "ring", "butterfly"},
	Allgather:     {"", "linear", "bruck", "recursive_doubling", "ring", "neighbor", "two_proc"},
	Allgatherv:    {"", "default", "bruck", "ring", "neighbor", "two_proc"},
	Gather:        {"", "basic_linear", "binomial", "linear_sync"},
	Scatter:       {"", "basic_linear", "binomial", "linear_nb"},
}

// ompiAlgs maps Open MPI's algorithm numbers to this package's
// algorithms: the same algorithm where one exists (Open MPI's alltoall
// linear_sync with its default of no request limit posts everything, as
// linear does; two_proc is pairwise's one step at P = 2), an "ompi_" name
// of Open MPI's own otherwise, or, for one not modelled, a name that is
// not registered (SelectOpenMPI then uses its stand-in).
var ompiAlgs = map[Op][]string{
	Allreduce:     {"", "ompi_linear", "ompi_nonoverlapping", "recdoub", "ompi_ring", "ompi_segmented_ring", "ompi_redscat_allgather"},
	Alltoall:      {"", "linear", "ompi_pairwise", "bruck", "linear", "ompi_pairwise"},
	Alltoallv:     {"", "ompi_linear", "ompi_pairwise"},
	Barrier:       {"", "ompi_linear", "ompi_double_ring", "recdoub", "dissemination", "ompi_two_proc", "ompi_tree"},
	Bcast:         {"", "ompi_linear", "ompi_chain", "ompi_pipeline", "ompi_split_bintree", "ompi_bintree", "ompi_binomial", "ompi_knomial", "ompi_scatter_allgather", "ompi_scatter_allgather_ring"},
	Reduce:        {"", "ompi_linear", "ompi_chain", "ompi_pipeline", "ompi_binary", "ompi_binomial", "ompi_in_order_binary", "ompi_redscat_gather"},
	ReduceScatter: {"", "ompi_nonoverlapping", "recursive_halving", "ring", "ompi_butterfly"},
	Allgather:     {"", "ompi_linear", "bruck", "ompi_recdoub", "ring", "ompi_neighbor", "ompi_two_proc"},
	Allgatherv:    {"", "ompi_default", "ompi_bruck", "ompi_ring", "ompi_neighbor", "ompi_two_proc"},
	Gather:        {"", "ompi_linear", "binomial", "ompi_linear_sync"},
	Scatter:       {"", "ompi_linear", "binomial", "linear"},
}

// ompiNamesRSBlock and ompiAlgsRSBlock are MPI_Reduce_scatter_block's.
var (
	ompiNamesRSBlock = []string{"", "basic_linear", "recursive_doubling", "recursive_halving", "butterfly"}
	ompiAlgsRSBlock  = []string{"", "ompi_block_linear", "ompi_block_recdoub", "recursive_halving", "ompi_block_butterfly"}
)

// ompiBasic is what the basic component runs for the operations tuned
// leaves to it (ompi/mca/coll/basic, tag v4.1.4).
var ompiBasic = map[Op]string{Scan: "linear", Exscan: "ompi_linear", Gatherv: "ompi_linear", Scatterv: "ompi_linear"}

var ompiFixed = map[Op][]ompiBand{
	Allreduce: { // ompi_coll_tuned_allreduce_intra_dec_fixed, commutative branch
		{4, []uint64{8, 4, 4 * kib, 3, 8 * kib, 4, 16 * kib, 3, 64 * kib, 4, 256 * kib, 5, 6}},
		{8, []uint64{16, 4, 8 * kib, 3, 6}},
		{16, []uint64{8 * kib, 3, 6}},
		{32, []uint64{64, 5, 4 * kib, 3, 6}},
		{64, []uint64{128, 5, 6}},
		{128, []uint64{256 * kib, 3, 6}},
		{256, []uint64{128 * kib, 2, 256 * kib, 3, 6}},
		{512, []uint64{4 * kib, 2, 6}},
		{2048, []uint64{2 * kib, 2, 16 * kib, 3, 6}},
		{4096, []uint64{2 * kib, 2, 4 * kib, 5, 16 * kib, 3, 6}},
		{0, []uint64{2 * kib, 2, 16 * kib, 5, 32 * kib, 3, 6}},
	},
	Alltoall: { // ompi_coll_tuned_alltoall_intra_dec_fixed
		{3, []uint64{2, 2, 4, 5, 16, 2, 64, 5, 256, 2, 4 * kib, 5, 32 * kib, 2, 256 * kib, 4, 1 * mib, 5, 2}},
		{8, []uint64{8 * kib, 4, 16 * kib, 1, 64 * kib, 4, 512 * kib, 1, 1 * mib, 2, 1}},
		{16, []uint64{256 * kib, 4, 1}},
		{32, []uint64{4, 4, 512, 3, 8 * kib, 4, 32 * kib, 1, 256 * kib, 4, 512 * kib, 1, 4}},
		{64, []uint64{512, 3, 512 * kib, 1, 4}},
		{128, []uint64{1 * kib, 3, 2 * kib, 1, 4 * kib, 4, 256 * kib, 1, 2}},
		{256, []uint64{1 * kib, 3, 2 * kib, 4, 256 * kib, 1, 2}},
		{512, []uint64{1 * kib, 3, 8 * kib, 4, 32 * kib, 1, 2}},
		{1024, []uint64{512, 3, 8 * kib, 4, 16 * kib, 1, 128 * kib, 4, 256 * kib, 1, 2}},
		{2048, []uint64{512, 3, 1 * kib, 4, 2 * kib, 1, 16 * kib, 4, 256 * kib, 1, 4}},
		{4096, []uint64{1 * kib, 3, 4 * kib, 4, 8 * kib, 1, 128 * kib, 4, 1}},
		{0, []uint64{2 * kib, 3, 8 * kib, 4, 16 * kib, 1, 32 * kib, 4, 64 * kib, 1, 4}},
	},
	Alltoallv: { // ompi_coll_tuned_alltoallv_intra_dec_fixed: by P only
		{4, []uint64{2}}, {64, []uint64{1}}, {128, []uint64{2}}, {256, []uint64{1}}, {1024, []uint64{2}}, {0, []uint64{1}},
	},
	Barrier: { // ompi_coll_tuned_barrier_intra_dec_fixed: by P only
		{4, []uint64{3}}, {8, []uint64{1}}, {64, []uint64{3}}, {256, []uint64{4}}, {512, []uint64{6}},
		{1024, []uint64{4}}, {4096, []uint64{6}}, {0, []uint64{4}},
	},
	Bcast: { // ompi_coll_tuned_bcast_intra_dec_fixed
		{4, []uint64{32, 3, 256, 5, 512, 3, 1 * kib, 7, 32 * kib, 1, 128 * kib, 5, 256 * kib, 2, 512 * kib, 1, 1 * mib, 6, 5}},
		{8, []uint64{64, 5, 128, 6, 2 * kib, 5, 8 * kib, 6, 1 * mib, 1, 2}},
		{16, []uint64{8, 7, 64, 5, 4 * kib, 7, 16 * kib, 5, 32 * kib, 6, 1}},
		{32, []uint64{4 * kib, 7, 1 * mib, 6, 8}},
		{64, []uint64{2 * kib, 6, 7}},
		{128, []uint64{7}},
		{256, []uint64{2, 6, 16 * kib, 5, 32 * kib, 1, 64 * kib, 5, 7}},
		{1024, []uint64{16 * kib, 7, 32 * kib, 4, 7}},
		{2048, []uint64{512 * kib, 7, 8}},
		{4096, []uint64{256 * kib, 7, 8}},
		{0, []uint64{8 * kib, 7, 16 * kib, 5, 256 * kib, 7, 8}},
	},
	Reduce: { // ompi_coll_tuned_reduce_intra_dec_fixed, commutative branch
		{4, []uint64{8, 7, 16, 4, 32, 3, 256 * kib, 1, 512 * kib, 3, 1 * mib, 2, 3}},
		{8, []uint64{4 * kib, 4, 64 * kib, 2, 256 * kib, 5, 512 * kib, 1, 1 * mib, 5, 1}},
		{16, []uint64{8 * kib, 4, 5}},
		{32, []uint64{4 * kib, 4, 5}},
		{256, []uint64{5}},
		{512, []uint64{8 * kib, 5, 16 * kib, 6, 5}},
		{2048, []uint64{5}},
		{4096, []uint64{512, 5, 1 * kib, 6, 8 * kib, 5, 16 * kib, 6, 5}},
		{0, []uint64{16, 5, 32, 6, 1 * kib, 5, 2 * kib, 6, 8 * kib, 5, 16 * kib, 6, 5}},
	},
	ReduceScatter: { // ompi_coll_tuned_reduce_scatter_intra_dec_fixed, commutative branch
		{4, []uint64{64 * kib, 3, 128 * kib, 4, 3}},
		{8, []uint64{8, 1, 256 * kib, 2, 3}},
		{32, []uint64{256 * kib, 2, 3}},
		{64, []uint64{64, 1, 2 * kib, 2, 512 * kib, 4, 3}},
		{128, []uint64{256, 1, 512, 2, 2 * kib, 4, 4 * kib, 2, 4}},
		{256, []uint64{256, 1, 512, 2, 4}},
		{512, []uint64{256, 1, 1 * kib, 2, 4}},
		{1024, []uint64{512, 1, 2 * kib, 2, 8 * kib, 4, 16 * kib, 2, 4}},
		{2048, []uint64{512, 1, 4 * kib, 2, 16 * kib, 4, 32 * kib, 2, 4}},
		{4096, []uint64{512, 1, 4 * kib, 2, 4}},
		{0, []uint64{1 * kib, 1, 8 * kib, 2, 4}},
	},
	Allgather: { // ompi_coll_tuned_allgather_intra_dec_fixed
		{3, []uint64{6}},
		{32, []uint64{3}},
		{64, []uint64{1 * kib, 3, 64 * kib, 5, 4}},
		{128, []uint64{512, 3, 64 * kib, 5, 4}},
		{256, []uint64{512, 3, 128 * kib, 5, 512 * kib, 4, 1 * mib, 5, 4}},
		{512, []uint64{32, 3, 128, 2, 1 * kib, 3, 128 * kib, 5, 512 * kib, 4, 1 * mib, 5, 4}},
		{1024, []uint64{64, 3, 256, 2, 2 * kib, 3, 5}},
		{2048, []uint64{4, 3, 8, 2, 16, 3, 32, 2, 256, 3, 512, 2, 4 * kib, 3, 5}},
		{4096, []uint64{32, 2, 128, 3, 512, 2, 4 * kib, 3, 5}},
		{0, []uint64{2, 3, 8, 2, 16, 3, 512, 2, 4 * kib, 3, 5}},
	},
	Allgatherv: { // ompi_coll_tuned_allgatherv_intra_dec_fixed: by the mean block
		{3, []uint64{2 * kib, 3, 4 * kib, 5, 8 * kib, 3, 5}},
		{8, []uint64{256, 1, 4 * kib, 4, 8 * kib, 3, 16 * kib, 4, 256 * kib, 2, 4}},
		{16, []uint64{1 * kib, 1, 2}},
		{32, []uint64{128, 1, 256 * kib, 2, 3}},
		{64, []uint64{256, 1, 8 * kib, 2, 3}},
		{128, []uint64{256, 1, 4 * kib, 2, 3}},
		{256, []uint64{1 * kib, 2, 64 * kib, 4, 3}},
		{512, []uint64{1 * kib, 2, 3}},
		{1024, []uint64{512, 2, 1 * kib, 1, 4 * kib, 2, 1 * mib, 4, 3}},
		{0, []uint64{4 * kib, 2, 4}},
	},
	Gather: { // ompi_coll_tuned_gather_intra_dec_fixed
		{4, []uint64{2, 3, 4, 1, 32 * kib, 2, 64 * kib, 1, 128 * kib, 2, 3}},
		{8, []uint64{1 * kib, 2, 8 * kib, 1, 32 * kib, 2, 256 * kib, 1, 3}},
		{256, []uint64{2}},
		{512, []uint64{2 * kib, 2, 8 * kib, 1, 2}},
		{0, []uint64{2}},
	},
	Scatter: { // ompi_coll_tuned_scatter_intra_dec_fixed
		{4, []uint64{2, 3, 128 * kib, 1, 256 * kib, 3, 1}},
		{8, []uint64{2 * kib, 2, 4 * kib, 1, 8 * kib, 2, 32 * kib, 1, 1 * mib, 3, 1}},
		{16, []uint64{16 * kib, 2, 1 * mib, 3, 1}},
		{32, []uint64{16 * kib, 2, 32 * kib, 1, 3}},
		{64, []uint64{512, 2, 8 * kib, 3, 16 * kib, 2, 3}},
		{0, []uint64{512, 2, 3}},
	},
}

// ompiFixedRSBlock is ompi_coll_tuned_reduce_scatter_block_intra_dec_fixed,
// commutative branch, by the block each rank gets.
var ompiFixedRSBlock = []ompiBand{
	{4, []uint64{4, 2, 8, 4, 16, 3, 128, 4, 256, 3, 4 * kib, 4, 8 * kib, 3, 128 * kib, 4, 1}},
	{8, []uint64{8, 3, 32, 2, 256, 4, 8 * kib, 3, 16 * kib, 4, 1 * mib, 3, 1}},
	{16, []uint64{4, 1, 32, 3, 128, 4, 512 * kib, 3, 4 * mib, 1, 4}},
	{32, []uint64{32, 1, 512 * kib, 3, 2 * mib, 1, 4 * mib, 3, 4}},
	{0, []uint64{4, 3, 16, 1, 64 * kib, 4, 256 * kib, 1, 4}},
}

// ompiStandIn gives, for the Open MPI algorithms this package does not
// model, the algorithms used in their place, best first: the closest in
// messages and dependency structure.
var ompiStandIn = map[string][]string{}
