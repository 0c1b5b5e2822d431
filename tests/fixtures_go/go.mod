module probekit.test/gochain

go 1.19
