.PHONY: check test demo fmt
check test:
	scripts/dev.sh test
demo:
	scripts/dev.sh demo
fmt:
	scripts/dev.sh fmt
