{{partial "plaios/package/_page.tsx"}}
