# Homebrew formula for tbmesh: tbagentd, tbcontrollerd and tbctl, built from
# the release tarball (make dist) with the Makefile's make install.  Homebrew
# installs formulae from a tap only (a path is refused: Homebrew/brew#18371):
#   brew tap-new local/tbmesh
#   cp packaging/homebrew/tbmesh.rb "$(brew --repository local/tbmesh)/Formula/"
#   brew install local/tbmesh/tbmesh
# tests/integration/formula.sh keeps it true to the Makefile: the version in
# the url is VERSION, every pkg-config module of *_PKGS has its depends_on,
# and every file named below is one make install places.
class Tbmesh < Formula
  desc "Thunderbolt 5 Mac cluster agent, controller and CLI for RDMA model runs"
  homepage "https://github.com/tbmesh/tbmesh"
  url "https://github.com/tbmesh/tbmesh/releases/download/v0.1.0/tbmesh-0.1.0.tar.gz"
  # make dist prints this line for the tarball it makes; set it at each release
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"

  # cmocka: the unit tests' library, for make check in the unpacked tarball
  # (make install builds the programs only, which do not link it).
  depends_on "cmocka" => :build
  depends_on "pkgconf" => :build
  depends_on "cjson"
  depends_on "curl"
  depends_on "gnutls"
  depends_on "libmicrohttpd"
  depends_on "libssh"
  depends_on "sqlite"

  def install
    # The configuration is the prefix's etc, not the keg's; brew services
    # writes its own plist, so none goes to /Library/LaunchDaemons.
    system "make", "install", "PREFIX=#{prefix}", "SYSCONFDIR=#{etc}", "LAUNCHDDIR=",
           "SYSTEMDUNITDIR="
  end

  # The agent's configuration, from the installed example, kept across
  # upgrades; its node token under var.
  def post_install
    (var/"lib/tbagentd").mkpath
    (var/"log").mkpath
    conf = etc/"tbmesh/tbagentd.conf"
    return if conf.exist?

    conf.dirname.mkpath
    example = (pkgshare/"tbagentd.conf.example").read
    conf.write example + <<~EOS

      # brew services: where the agent keeps its node token
      state-dir = #{var}/lib/tbagentd
    EOS
  end

  def caveats
    <<~EOS
      Name the controller in #{etc}/tbmesh/tbagentd.conf
      (controller = URL, bootstrap-token-file = FILE), then start the agent:
        brew services start tbmesh          # at login
        sudo brew services start tbmesh     # at boot, without a login
      The controller runs with: tbcontrollerd -f CONFIG (example:
      #{opt_pkgshare}/tbcontrollerd.conf.example; launchd plists beside it).
    EOS
  end

  service do
    run [opt_sbin/"tbagentd", "-f", etc/"tbmesh/tbagentd.conf"]
    keep_alive true
    environment_variables PATH: std_service_path_env
    log_path var/"log/tbagentd.log"
    error_log_path var/"log/tbagentd.log"
    process_type :background
  end

  # After Homebrew's Formula Cookbook, "Add a test to the formula"
  # (https://docs.brew.sh/Formula-Cookbook#add-a-test-to-the-formula): test
  # do runs in a temporary testpath (also HOME), shell_output asserts the exit
  # status, assert_match the output; a daemon is spawned on a free port and
  # stopped in ensure.  Here the controller picks its port (127.0.0.1:0) and
  # logs it.
  test do
    assert_equal "tbctl #{version}", shell_output("#{bin}/tbctl --version").strip
    assert_equal "tbagentd #{version}", shell_output("#{sbin}/tbagentd --version").strip
    assert_equal "tbcontrollerd #{version}", shell_output("#{sbin}/tbcontrollerd --version").strip
    assert_match "usage: tbcontrollerd", shell_output("#{sbin}/tbcontrollerd -h")
    [man1/"tbctl.1", man8/"tbagentd.8", man8/"tbcontrollerd.8", man7/"tbmesh.7",
     man7/"tbmesh-wiring.7", pkgshare/"catalog.json",
     pkgshare/"tbagentd.conf.example", pkgshare/"tbcontrollerd.conf.example",
     pkgshare/"com.tbmesh.tbagentd.plist", pkgshare/"com.tbmesh.tbcontrollerd.plist"].each do |f|
      assert_path_exists f
    end
    assert_match "configuration OK",
                 shell_output("#{sbin}/tbagentd -n -f #{pkgshare}/tbagentd.conf.example")

    log = testpath/"tbcontrollerd.log"
    pid = spawn sbin/"tbcontrollerd", "--listen", "127.0.0.1:0", "--db", testpath/"inventory.db",
                "--admin-token-file", testpath/"admin-token", [:out, :err] => log.to_s
    begin
      port = nil
      100.times do
        port = log.read[/listening on 127\.0\.0\.1:(\d+)/, 1] if log.exist?
        break if port

        sleep 0.1
      end
      refute_nil port, "tbcontrollerd did not start: #{log.read}"
      url = "http://127.0.0.1:#{port}"
      assert_match "\"status\":\"ok\"", shell_output("curl -s #{url}/healthz")
      ENV["TBCTL_URL"] = url
      ENV["TBCTL_TOKEN_FILE"] = (testpath/"admin-token").to_s
      shell_output("#{bin}/tbctl cluster create lab")
      assert_match "lab", shell_output("#{bin}/tbctl clusters")
    ensure
      Process.kill "TERM", pid
      Process.wait pid
    end
  end
end
