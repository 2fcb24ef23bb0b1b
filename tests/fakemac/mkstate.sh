#!/bin/sh
# mkstate.sh DIR [studio|macbook]: fill DIR with the state of one fake Mac
# for the commands in bin/ (see fake.sh for the file names), from the
# captures in tests/fixtures/macos/.  Existing files in DIR are overwritten.
#
# studio (the default): the M3 Ultra Mac Studio of
#   system_profiler-thunderbolt-studio.json: six receptacles on en3, en2,
#   en4, en5, en6, en7; the MacBook Pro on receptacle 2 (en2,
#   169.254.205.255, rdma_en2 PORT_ACTIVE with its IPv4 GID), a USB4 drive on
#   receptacle 4; RDMA enabled, six rdma_enN devices, the others PORT_DOWN;
#   Thunderbolt Bridge present but inactive, no members; 512 GB; macOS 26.2
#   (25C56); macmon and powermetrics both answer; hostname mac-studio-1;
#   LAN: Ethernet en0 192.0.2.11, Wi-Fi en1 192.0.2.111, a VPN utun4
#   198.51.100.7 (`ifconfig -a`).
# macbook: the M5 Max MacBook Pro at the other end (receptacle 1 on en1),
#   RDMA enabled, its ports PORT_DOWN (the Studio's capture shows no RDMA
#   service); 128 GB; hostname macbook-pro-1; LAN: Wi-Fi en0 192.0.2.12.
#
# Generated rather than captured (in the real formats): the ifconfig output
# of idle ports and of the inactive bridge, ibv_devinfo for the idle ports,
# the MacBook's SPHardwareDataType, ibv_devices and ifconfig en1, and the
# one-line sysctl values (kern.memorystatus_level: 61, memory_pressure's
# 61%; kern.hostname: the hostname).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
fx=$top/tests/fixtures/macos
dir=${1:?usage: mkstate.sh DIR [studio|macbook]}
kind=${2:-studio}
mkdir -p "$dir"

put() {  # KEY FIXTURE: copy a fixture as KEY.out
	cp "$fx/$2" "$dir/$1.out"
	chmod u+w "$dir/$1.out"
}

idle_ifconfig() {  # IF MAC-SUFFIX: a Thunderbolt port with no cable
	printf '%s: flags=8863<UP,BROADCAST,SMART,RUNNING,SIMPLEX,MULTICAST> mtu 1500\n' "$1"
	printf '\toptions=460<TSO4,TSO6,CHANNEL_IO>\n'
	printf '\tether 36:77:f5:36:3a:%s\n' "$2"
	printf '\tmedia: autoselect <full-duplex>\n'
	printf '\tstatus: inactive\n'
}

port_down() {  # DEVICE: ibv_devinfo of a port that is down
	sed "s/rdma_en1/$1/" "$fx/ibv_devinfo-one-port-down.txt"
}

common() {
	# The bridge as provisioning leaves it: no members, inactive.
	sed -e '/member:/d' -e '/ifmaxaddr/d' -e 's/status: active/status: inactive/' \
	    "$fx/ifconfig-bridge0-active.txt" >"$dir/ifconfig_bridge0.out"
	put rdma_ctl_status rdma_ctl-status-enabled.txt
	put vm_stat vm_stat.txt
	put sysctl_vm.swapusage sysctl-vm.swapusage.txt
	put memory_pressure memory_pressure-Q.txt
	put sw_vers sw_vers.txt
	put macmon_pipe_1 macmon-pipe.jsonl
	put powermetrics_cpu_power,gpu_power_1000_1 powermetrics-cpu_power-gpu_power.txt
	# the streams the agent keeps running (fake.sh, "Streams")
	put macmon_pipe macmon-pipe.jsonl
	put powermetrics_cpu_power,gpu_power powermetrics-cpu_power-gpu_power.txt
	# memory_pressure -Q's free percentage, as the sysctl it comes from
	echo 61 >"$dir/sysctl_kern.memorystatus_level.out"
	echo 0 >"$dir/sysctl_iogpu.wired_limit_mb.out"
	echo '{ sec = 1763712764, usec = 123 } Fri Nov 21 08:12:44 2025' \
	    >"$dir/sysctl_kern.boottime.out"
}

studio() {
	put system_profiler_SPThunderboltDataType system_profiler-thunderbolt-studio.json
	put system_profiler_SPHardwareDataType system_profiler-hardware-studio.json
	put networksetup networksetup-listallhardwareports-studio.txt
	put ifconfig ifconfig-a-studio.txt
	sed 's/en3/en2/g' "$fx/ifconfig-en3-linklocal.txt" >"$dir/ifconfig_en2.out"
	idle_ifconfig en3 85 >"$dir/ifconfig_en3.out"
	idle_ifconfig en4 86 >"$dir/ifconfig_en4.out"
	idle_ifconfig en5 87 >"$dir/ifconfig_en5.out"
	idle_ifconfig en6 88 >"$dir/ifconfig_en6.out"
	idle_ifconfig en7 89 >"$dir/ifconfig_en7.out"
	put ibv_devices ibv_devices-studio-enabled.txt
	{
		cat "$fx/ibv_devinfo-v-active.txt"
		for d in rdma_en3 rdma_en5 rdma_en4 rdma_en6 rdma_en7; do port_down $d; done
	} >"$dir/ibv_devinfo.out"
	echo 549755813888 >"$dir/sysctl_hw.memsize.out"
	echo mac-studio-1 >"$dir/hostname.out"
	echo mac-studio-1 >"$dir/sysctl_kern.hostname.out"
}

macbook() {
	put system_profiler_SPThunderboltDataType system_profiler-thunderbolt-macbook.json
	cat >"$dir/system_profiler_SPHardwareDataType.out" <<'JSON'
{
  "SPHardwareDataType" : [
    {
      "_name" : "hardware_overview",
      "chip_type" : "Apple M5 Max",
      "machine_model" : "Mac17,7",
      "machine_name" : "MacBook Pro",
      "physical_memory" : "128 GB",
      "platform_UUID" : "7A3E2B10-0000-5000-8000-6F5E4D3C2B1A",
      "serial_number" : "K9QZ0000MB"
    }
  ]
}
JSON
	put networksetup networksetup-listallhardwareports-macbook.txt
	put ifconfig ifconfig-a-macbook.txt
	sed -e 's/en3/en1/g' -e 's/169\.254\.205\.255/169.254.77.12/' \
	    "$fx/ifconfig-en3-linklocal.txt" >"$dir/ifconfig_en1.out"
	idle_ifconfig en6 96 >"$dir/ifconfig_en6.out"
	idle_ifconfig en2 92 >"$dir/ifconfig_en2.out"
	{
		printf 'device          \t   node GUID\n------          \t----------------\n'
		printf 'rdma_en1        \t9096a9d9edbaad01\n'
		printf 'rdma_en6        \t9196a9d9edbaad01\n'
		printf 'rdma_en2        \t9296a9d9edbaad01\n'
	} >"$dir/ibv_devices.out"
	{ port_down rdma_en1; port_down rdma_en6; port_down rdma_en2; } >"$dir/ibv_devinfo.out"
	echo 137438953472 >"$dir/sysctl_hw.memsize.out"
	echo macbook-pro-1 >"$dir/hostname.out"
	echo macbook-pro-1 >"$dir/sysctl_kern.hostname.out"
}

case $kind in
studio) common; studio ;;
macbook) common; macbook ;;
*) echo "mkstate.sh: unknown kind $kind (studio or macbook)" >&2; exit 2 ;;
esac
