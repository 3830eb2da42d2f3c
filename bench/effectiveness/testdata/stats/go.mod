module example.com/stats

go 1.22
