package bench

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// helperEnv makes the test binary a helper process instead of running
// tests: "server" serves one tcp backend session;
// "relay,LATENCY_NS,NS_PER_BYTE,PACKET_BYTES,TARGET" relays one connection to TARGET
// through an emulated link (relay_linux_test.go). Either announces its
// address as `gopsim calibrate --listen` does.
const helperEnv = "GOPSIM_BENCH_HELPER"

func TestMain(m *testing.M) {
	role := os.Getenv(helperEnv)
	if role == "" {
		os.Exit(m.Run())
	}
	if err := helper(role); err != nil {
		fmt.Fprintf(os.Stderr, "helper %s: %v\n", role, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func helper(role string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if f := strings.Split(role, ","); f[0] == "relay" && len(f) == 5 {
		latency, err1 := strconv.ParseInt(f[1], 10, 64)
		perByte, err2 := strconv.ParseFloat(f[2], 64)
		packet, err3 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || err3 != nil {
			return fmt.Errorf("bad link %q", role)
		}
		addr, wait, err := startRelay(f[4], link{Latency: time.Duration(latency), PerByte: perByte, Packet: packet})
		if err != nil {
			return err
		}
		fmt.Printf("%s%s\n", ListenBanner, addr)
		wait()
		return nil
	}
	if role != "server" {
		return fmt.Errorf("unknown role")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("%s%s\n", ListenBanner, ln.Addr())
	_, err = ServeOne(ctx, ln)
	return err
}

// startHelper starts the test binary as a helper process with the given
// role and returns its address.
func startHelper(t *testing.T, ctx context.Context, role string) (addr string, wait func() error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+role)
	cmd.Stderr = os.Stderr
	addr, wait, err := StartServerProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return addr, wait
}

func itoa(x int64) string   { return strconv.FormatInt(x, 10) }
func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
