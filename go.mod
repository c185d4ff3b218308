module github.com/askuser-go/askuser

go 1.25
