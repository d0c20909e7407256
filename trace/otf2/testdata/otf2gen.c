/* otf2gen writes a synthetic OTF2 archive of an MPI program with the OTF2
 * library, for the tests and benchmarks of gopsim's OTF2 decoder: RANKS
 * ranks, each ITERS iterations of compute, a ring of Isend/Irecv/Waitall,
 * a Send/Recv between pairs, an Allreduce, an Iallreduce and an Ibcast
 * completed by one Waitall (after a failed Test) and an Ibarrier completed
 * by a Wait. With "kitchen", each rank also records once the events gopsim
 * does not use (metrics, threads, RMA, ...), with an attribute list.
 *
 * Build: cc -o otf2gen otf2gen.c $(pkg-config --cflags --libs otf2)
 * usage: otf2gen DIR NAME RANKS ITERS [kitchen] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <otf2/otf2.h>

static OTF2_FlushType pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool f) { return OTF2_FLUSH; }
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType t, OTF2_LocationRef l) { return 0; }
static OTF2_FlushCallbacks flush_callbacks = { .otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush };

enum { R_INIT, R_FINALIZE, R_SEND, R_RECV, R_ISEND, R_IRECV, R_WAIT, R_WAITALL, R_ALLREDUCE, R_IALLREDUCE,
       R_IBCAST, R_BCAST, R_TEST, R_USER, R_IBARRIER, R_COUNT };
static const char *rnames[] = { "MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv",
    "MPI_Wait", "MPI_Waitall", "MPI_Allreduce", "MPI_Iallreduce", "MPI_Ibcast", "MPI_Bcast", "MPI_Test",
    "compute", "MPI_Ibarrier" };

static uint64_t now;
#define T (now += 1000)

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: otf2gen DIR NAME RANKS ITERS [kitchen]\n"); return 2; }
    const char *dir = argv[1], *name = argv[2];
    int ranks = atoi(argv[3]), iters = atoi(argv[4]);
    int kitchen = argc > 5;
    OTF2_Archive *a = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_SetCreator(a, "gopsim otf2gen");
    OTF2_Archive_OpenEvtFiles(a);
    uint64_t *nev = calloc(ranks, sizeof *nev);
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    for (int r = 0; r < ranks; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, r);
        now = 1000000 + r * 7;
        int right = (r + 1) % ranks, left = (r + ranks - 1) % ranks;
        OTF2_EvtWriter_Enter(w, NULL, T, R_INIT);
        OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, T);
        OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, T, OTF2_COLLECTIVE_OP_BARRIER, 0, OTF2_UNDEFINED_UINT32, 0, 0);
        OTF2_EvtWriter_Leave(w, NULL, T, R_INIT);
        if (kitchen) {
            OTF2_AttributeValue v; v.uint32 = 7;
            OTF2_AttributeList_AddAttribute(al, 0, OTF2_TYPE_UINT32, v);
            OTF2_EvtWriter_Enter(w, al, T, R_USER);
            OTF2_EvtWriter_BufferFlush(w, NULL, T, now + 5);
            OTF2_EvtWriter_MeasurementOnOff(w, NULL, T, OTF2_MEASUREMENT_OFF);
            OTF2_EvtWriter_MeasurementOnOff(w, NULL, T, OTF2_MEASUREMENT_ON);
            OTF2_Type ty[2] = { OTF2_TYPE_UINT64, OTF2_TYPE_DOUBLE };
            OTF2_MetricValue mv[2]; mv[0].unsigned_int = 42; mv[1].floating_point = 1.5;
            OTF2_EvtWriter_Metric(w, NULL, T, 0, 2, ty, mv);
            OTF2_EvtWriter_ParameterInt(w, NULL, T, 0, -5);
            OTF2_EvtWriter_ThreadFork(w, NULL, T, OTF2_PARADIGM_OPENMP, 4);
            OTF2_EvtWriter_ThreadJoin(w, NULL, T, OTF2_PARADIGM_OPENMP);
            OTF2_EvtWriter_RmaWinCreate(w, NULL, T, 0);
            OTF2_EvtWriter_RmaPut(w, NULL, T, 0, 1, 100, 3);
            OTF2_EvtWriter_CallingContextSample(w, NULL, T, 0, 1, 0);
            OTF2_EvtWriter_CommCreate(w, NULL, T, 0);
            OTF2_StringRef args[2] = { 1, 2 };
            OTF2_EvtWriter_ProgramBegin(w, NULL, T, 1, 2, args);
            OTF2_EvtWriter_Leave(w, NULL, T, R_USER);
        }
        uint64_t req = 1;
        for (int i = 0; i < iters; i++) {
            OTF2_EvtWriter_Enter(w, NULL, T, R_USER);
            now += 50000;
            OTF2_EvtWriter_Leave(w, NULL, T, R_USER);
            /* ring: Irecv from left, Isend to right, Waitall */
            OTF2_EvtWriter_Enter(w, NULL, T, R_IRECV);
            OTF2_EvtWriter_MpiIrecvRequest(w, NULL, T, req);
            OTF2_EvtWriter_Leave(w, NULL, T, R_IRECV);
            OTF2_EvtWriter_Enter(w, NULL, T, R_ISEND);
            OTF2_EvtWriter_MpiIsend(w, NULL, T, right, 0, 5, 4096 + i, req + 1);
            OTF2_EvtWriter_Leave(w, NULL, T, R_ISEND);
            OTF2_EvtWriter_Enter(w, NULL, T, R_WAITALL);
            OTF2_EvtWriter_MpiIsendComplete(w, NULL, T, req + 1);
            OTF2_EvtWriter_MpiIrecv(w, NULL, T, left, 0, 5, 4096 + i, req);
            OTF2_EvtWriter_Leave(w, NULL, T, R_WAITALL);
            req += 2;
            /* blocking send/recv pair between even and odd ranks */
            if (ranks > 1 && (r ^ 1) < ranks) {
                int peer = r ^ 1;
                if (r % 2 == 0) {
                    OTF2_EvtWriter_Enter(w, NULL, T, R_SEND);
                    OTF2_EvtWriter_MpiSend(w, NULL, T, peer, 0, 9, 1 << 20);
                    OTF2_EvtWriter_Leave(w, NULL, T, R_SEND);
                } else {
                    OTF2_EvtWriter_Enter(w, NULL, T, R_RECV);
                    OTF2_EvtWriter_MpiRecv(w, NULL, T, peer, 0, 9, 1 << 20);
                    OTF2_EvtWriter_Leave(w, NULL, T, R_RECV);
                }
            }
            /* allreduce of 8 doubles */
            OTF2_EvtWriter_Enter(w, NULL, T, R_ALLREDUCE);
            OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, T);
            OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, T, OTF2_COLLECTIVE_OP_ALLREDUCE, 0, OTF2_UNDEFINED_UINT32, 64 * ranks, 64 * ranks);
            OTF2_EvtWriter_Leave(w, NULL, T, R_ALLREDUCE);
            /* nonblocking allreduce and bcast, a failed test, then wait */
            OTF2_EvtWriter_Enter(w, NULL, T, R_IALLREDUCE);
            OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, T, req);
            OTF2_EvtWriter_Leave(w, NULL, T, R_IALLREDUCE);
            OTF2_EvtWriter_Enter(w, NULL, T, R_IBCAST);
            OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, T, req + 1);
            OTF2_EvtWriter_Leave(w, NULL, T, R_IBCAST);
            OTF2_EvtWriter_Enter(w, NULL, T, R_TEST);
            OTF2_EvtWriter_MpiRequestTest(w, NULL, T, req);
            OTF2_EvtWriter_Leave(w, NULL, T, R_TEST);
            OTF2_EvtWriter_Enter(w, NULL, T, R_WAITALL);
            OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, T, OTF2_COLLECTIVE_OP_ALLREDUCE, 0, OTF2_UNDEFINED_UINT32, 128 * ranks, 128 * ranks, req);
            OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, T, OTF2_COLLECTIVE_OP_BCAST, 0, 0, r == 0 ? 256 * ranks : 0, 256, req + 1);
            OTF2_EvtWriter_Leave(w, NULL, T, R_WAITALL);
            req += 2;
            /* an ibarrier completed by MPI_Wait */
            OTF2_EvtWriter_Enter(w, NULL, T, R_IBARRIER);
            OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, T, req);
            OTF2_EvtWriter_Leave(w, NULL, T, R_IBARRIER);
            OTF2_EvtWriter_Enter(w, NULL, T, R_WAIT);
            OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, T, OTF2_COLLECTIVE_OP_BARRIER, 0, OTF2_UNDEFINED_UINT32, 0, 0, req);
            OTF2_EvtWriter_Leave(w, NULL, T, R_WAIT);
            req++;
        }
        OTF2_EvtWriter_Enter(w, NULL, T, R_FINALIZE);
        OTF2_EvtWriter_Leave(w, NULL, T, R_FINALIZE);
        OTF2_EvtWriter_GetNumberOfEvents(w, &nev[r]);
        OTF2_Archive_CloseEvtWriter(a, w);
    }
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_Archive_OpenDefFiles(a);
    for (int r = 0; r < ranks; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, r);
        OTF2_Archive_CloseDefWriter(a, dw);
    }
    OTF2_Archive_CloseDefFiles(a);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, now + 1000, OTF2_UNDEFINED_TIMESTAMP);
    OTF2_StringRef s = 0;
    OTF2_GlobalDefWriter_WriteString(g, s++, "");
    for (int i = 0; i < R_COUNT; i++) OTF2_GlobalDefWriter_WriteString(g, s++, rnames[i]);
    OTF2_StringRef sMachine = s++, sNode = s++, sWorld = s++, sRanks = s++, sProc = s++, sThread = s++, sAttr = s++;
    OTF2_GlobalDefWriter_WriteString(g, sMachine, "machine");
    OTF2_GlobalDefWriter_WriteString(g, sNode, "node");
    OTF2_GlobalDefWriter_WriteString(g, sWorld, "MPI_COMM_WORLD");
    OTF2_GlobalDefWriter_WriteString(g, sRanks, "MPI ranks");
    OTF2_GlobalDefWriter_WriteString(g, sProc, "MPI Rank");
    OTF2_GlobalDefWriter_WriteString(g, sThread, "Master thread");
    OTF2_GlobalDefWriter_WriteString(g, sAttr, "an attribute");
    OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, sProc, OTF2_PARADIGM_CLASS_PROCESS);
    OTF2_GlobalDefWriter_WriteAttribute(g, 0, sAttr, sAttr, OTF2_TYPE_UINT32);
    for (int i = 0; i < R_COUNT; i++)
        OTF2_GlobalDefWriter_WriteRegion(g, i, i + 1, i + 1, 0, i == R_USER ? OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_FUNCTION,
                                         i == R_USER ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, sMachine, sMachine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (int r = 0; r < ranks; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, sProc, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP);
    }
    for (int r = 0; r < ranks; r++)
        OTF2_GlobalDefWriter_WriteLocation(g, r, sThread, OTF2_LOCATION_TYPE_CPU_THREAD, nev[r], r);
    uint64_t *members = malloc(ranks * sizeof *members);
    for (int r = 0; r < ranks; r++) members[r] = r;
    OTF2_GlobalDefWriter_WriteGroup(g, 0, sRanks, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ranks, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ranks, members);
    OTF2_GlobalDefWriter_WriteComm(g, 0, sWorld, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_Archive_CloseGlobalDefWriter(a, g);
    OTF2_AttributeList_Delete(al);
    OTF2_Archive_Close(a);
    return 0;
}
