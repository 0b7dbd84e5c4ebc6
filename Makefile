# Thin wrapper over CMake/CTest.  Each goal does its own set-up: it checks
# (and as root installs) the Debian packages the full build needs,
# configures, builds.  The library alone needs only a C compiler and
# CMake: cmake -S . -B build -DRCB_BUILD_TOOLS=OFF -DRCB_BUILD_TESTS=OFF
# (or cmake --workflow --preset library).
BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= 2
CMAKE_FLAGS ?=

.PHONY: all deps configure build test demo bench soak install install-urcu-compat uninstall dist models-deep sim scale clean

all: build

deps:
	@sh scripts/deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

demo: build
	$(BUILD)/tools/demo/rcuboost-demo --out $(BUILD)/demo-out

bench: build
	$(BUILD)/tools/bench/rcuboost-bench --json $(BUILD)/bench.json

# The soak test for longer than make test runs it (tests/soak/soak.c):
# every public call at once from many threads.  SOAK_SEED reruns a seed
# that a failure printed.
SOAK_SECONDS ?= 600
SOAK_THREADS ?= 6
soak: build
	$(BUILD)/tests/soak/soak --seconds $(SOAK_SECONDS) --threads $(SOAK_THREADS) $(if $(SOAK_SEED),--seed $(SOAK_SEED))

# As root, refresh the dynamic linker's cache, else a program linked
# against a new SONAME in /usr/local/lib does not start.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)
	@if [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null 2>&1; then ldconfig; fi

# liburcu compatibility files into $(PREFIX)/lib*/rcuboost-urcu-compat
# (rcuboost-urcu(7)); never over a real liburcu.
install-urcu-compat: build
	cmake --install $(BUILD) --prefix $(PREFIX) --component urcu-compat

# Remove what install and install-urcu-compat put under $(PREFIX) from
# $(BUILD), and the directories left empty (scripts/uninstall.sh).
uninstall:
	sh scripts/uninstall.sh $(BUILD) $(PREFIX)

# rcuboost-X.Y.Z.tar.gz of the committed tree, reproducible
# (scripts/dist.sh).
dist:
	@sh scripts/dist.sh

# Deeper model checks (more critical sections and aging elements) than
# the ones make test runs.
models-deep: deps
	sh models/run_model.sh --deep

# The longer deterministic-simulation sweep (make test runs the short
# one, CTest label sim): SEEDS seeds of every workload, then boosting and
# fork.
SEEDS ?= 20000
sim: build
	$(BUILD)/tools/sim/rcuboost-sim --seeds $(SEEDS) --quiet
	$(BUILD)/tools/sim/rcuboost-sim --boost --seeds $$(($(SEEDS) / 4)) --seed 1000001 --quiet
	$(BUILD)/tools/sim/rcuboost-sim --workload fork --seeds $$(($(SEEDS) / 4)) --seed 2000001 --quiet
	$(BUILD)/tools/sim/rcuboost-sim --workload xrw --seeds $$(($(SEEDS) / 10)) --seed 3000001 --quiet
	$(BUILD)/tools/sim/rcuboost-sim --workload xhog --boost --seeds $$(($(SEEDS) / 10)) --seed 4000001 --quiet
	$(BUILD)/tools/sim/rcuboost-sim --workload cbhog --boost --seeds $$(($(SEEDS) / 20)) --seed 5000001 --quiet
	$(BUILD)/tools/sim/rcuboost-sim --workload hog --rt-throttle 5/10 --seeds $$(($(SEEDS) / 20)) --seed 6000001 --quiet
	$(BUILD)/tools/sim/rcuboost-sim --workload hog --boost --backend pi --seeds $$(($(SEEDS) / 20)) --seed 7000001 --quiet

# The scale study (doc/scale.md): measure the unit costs here (root for
# sched_setattr; run it on a quiet machine), run the cost model with
# them, redraw doc/figures/scale-*.svg.  Not part of make test.
scale: build
	mkdir -p $(BUILD)/scale
	$(BUILD)/tools/sim/rcuboost-calib > $(BUILD)/scale/calib.txt
	$(BUILD)/tools/sim/rcuboost-scale --calib $(BUILD)/scale/calib.txt > $(BUILD)/scale/scale.csv
	$(BUILD)/tools/sim/rcuboost-scale --calib $(BUILD)/scale/calib.txt --calibration
	python3 tools/sim/scale_plot.py $(BUILD)/scale/scale.csv doc/figures

clean:
	rm -rf $(BUILD)
