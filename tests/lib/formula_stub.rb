# Runs a Homebrew formula's install, post_install, service and test blocks
# without Homebrew, for tests/integration/formula.sh:
#   ruby formula_stub.rb FORMULA ROOT SRCDIR
# ROOT plays HOMEBREW_PREFIX (the keg is ROOT/Cellar/NAME/VERSION, opt_prefix
# the symlink ROOT/opt/NAME to it, etc and var ROOT/etc and ROOT/var);
# install runs in SRCDIR.  Prints "service-run ARG..." (one argument a line,
# tab-separated after the key) and the other service settings, then
# "test: ok"; any failure raises (exit 1).
#
# Only the part of the Formula DSL that packaging/homebrew/tbmesh.rb uses is
# here, with Homebrew's meaning as its Formula Cookbook gives it
# (docs/Formula-Cookbook.md of Homebrew/brew: "Add a test to the formula",
# "Service files", "Variables for directory locations"): test do runs in a
# new testpath that is also HOME; shell_output runs a shell command and
# asserts its exit status; system fails the build on a non-zero status;
# spawn takes Pathnames as homebrew-core's formulae pass them.
require "pathname"
require "fileutils"
require "tmpdir"

class Formula
  class << self
    attr_reader :url_value, :sha256_value, :deps, :service_block, :test_block

    def desc(_text) = nil
    def homepage(_text) = nil
    def license(_text) = nil
    def url(value, **_opts) = (@url_value = value)
    def sha256(value) = (@sha256_value = value)

    def depends_on(spec)
      (@deps ||= []) << spec
    end

    def service(&block) = (@service_block = block)
    def test(&block) = (@test_block = block)
  end

  # What a service block sets, by method name.
  class Service
    attr_reader :settings

    def initialize(formula)
      @formula = formula
      @settings = {}
    end

    %i[run keep_alive environment_variables log_path error_log_path process_type
       working_dir require_root run_type].each do |m|
      define_method(m) { |*args| @settings[m] = args.length == 1 ? args.first : args }
    end

    def method_missing(name, *args, &block)
      @formula.respond_to?(name) ? @formula.send(name, *args, &block) : super
    end

    def respond_to_missing?(name, priv = false) = @formula.respond_to?(name) || super
  end

  attr_reader :root

  def initialize(root)
    @root = Pathname(root)
  end

  def name = self.class.name.downcase
  def version = self.class.url_value[/-(\d+(?:\.\d+)+)\.tar/, 1]
  def prefix = root/"Cellar"/name/version
  def opt_prefix = root/"opt"/name
  def etc = root/"etc"
  def var = root/"var"
  def testpath = @testpath

  { "" => :prefix, "opt_" => :opt_prefix }.each do |pre, base|
    { bin: "bin", sbin: "sbin", share: "share", pkgshare: "share/tbmesh", man: "share/man",
      man1: "share/man/man1", man7: "share/man/man7", man8: "share/man/man8", lib: "lib" }.each do |m, rel|
      define_method(:"#{pre}#{m}") { send(base)/rel }
    end
  end

  def std_service_path_env = "#{root}/bin:#{root}/sbin:/usr/bin:/bin:/usr/sbin:/sbin"

  def system(*args)
    Kernel.system(*args.map(&:to_s)) || raise("failed: #{args.join(" ")}")
  end

  def spawn(*args)
    opts = args.last.is_a?(Hash) ? args.pop : {}
    Process.spawn(*args.map(&:to_s), opts)
  end

  def shell_output(cmd, result = 0)
    out = `#{cmd}`
    status = $?.exitstatus
    raise "#{cmd}: exit #{status}, expected #{result}\n#{out}" if status != result

    out
  end

  def assert(cond, msg = "assertion failed") = (cond || raise(msg))
  def assert_equal(exp, act, msg = nil) = assert(exp == act, msg || "expected #{exp.inspect}, got #{act.inspect}")
  def assert_match(exp, act) = assert(act.match?(exp.is_a?(Regexp) ? exp : Regexp.new(Regexp.escape(exp))),
                                      "#{exp.inspect} not in #{act.inspect}")
  def assert_path_exists(path) = assert(File.exist?(path), "#{path} does not exist")
  def refute_nil(obj, msg = "nil") = assert(!obj.nil?, msg)

  def run_service
    svc = Service.new(self)
    svc.instance_eval(&self.class.service_block)
    svc.settings
  end

  def run_test
    Dir.mktmpdir("formula-test") do |dir|
      @testpath = Pathname(dir)
      home = ENV.fetch("HOME", nil)
      ENV["HOME"] = dir
      Dir.chdir(dir) { instance_eval(&self.class.test_block) }
    ensure
      ENV["HOME"] = home
    end
  end
end

formula_file, root, srcdir = ARGV
abort "usage: formula_stub.rb FORMULA ROOT SRCDIR" unless srcdir
load formula_file
klass = Formula.subclasses.first
f = klass.new(File.expand_path(root))
Dir.chdir(srcdir) { f.install }
f.opt_prefix.dirname.mkpath
File.symlink(f.prefix, f.opt_prefix)
f.post_install if f.respond_to?(:post_install)
f.run_service.each do |key, value|
  value = value.map(&:to_s).join("\t") if value.is_a?(Array)
  value = value.map { |k, v| "#{k}=#{v}" }.join("\t") if value.is_a?(Hash)
  puts "service-#{key.to_s.tr("_", "-")}\t#{value}"
end
puts "caveats\t#{f.caveats.lines.length} lines" if f.respond_to?(:caveats)
f.run_test
puts "test: ok"
