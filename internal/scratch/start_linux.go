package scratch

import (
	"os"
	"strconv"
	"strings"
)

// StartTime is when a process started, in the kernel's clock ticks since
// boot; "" when it is gone. With the pid it names one process for good.
func StartTime(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// starttime is the 20th field after the parenthesized command.
	i := strings.LastIndexByte(string(data), ')')
	if fields := strings.Fields(string(data[i+1:])); len(fields) > 19 {
		return fields[19]
	}
	return ""
}
