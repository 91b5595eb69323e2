# Builds graph.jsonl: a fictional music world (hand-written data, emitted as a Cairn JSON Lines dump).
import json

nodes, edges = [], []
def N(label, key, **props):
    nodes.append({"type": "node", "label": label, "key": key, "props": props})
def E(rel, fl, fk, tl, tk):
    edges.append({"type": "edge", "rel": rel, "from": {"label": fl, "key": fk}, "to": {"label": tl, "key": tk}})

# Cities
cities = [("c1","Gothenburg","Sweden",600000),("c2","Stockholm","Sweden",980000),("c3","Manchester","UK",550000),
          ("c4","Austin","USA",980000),("c5","Montreal","Canada",1760000),("c6","Melbourne","Australia",5000000),
          ("c7","Reykjavik","Iceland",135000),("c8","Berlin","Germany",3600000)]
for k,n,co,p in cities: N("City", k, name=n, country=co, population=p)

# Genres
genres = [("g1","Indie Rock"),("g2","Synthpop"),("g3","Post-Punk"),("g4","Folk"),("g5","Jazz"),("g6","Electronic"),("g7","Hip Hop"),("g8","Shoegaze")]
for k,n in genres: N("Genre", k, name=n)

# Record labels
labels = [("rl1","Driftwood Records",1992,"c1"),("rl2","Neon Harbor",2005,"c8"),("rl3","Copperline Music",1978,"c3"),
          ("rl4","Lantern Sound",2011,"c5"),("rl5","Bluegum Records",1999,"c6"),("rl6","Static Bloom",2016,"c4")]
for k,n,f,c in labels:
    N("RecordLabel", k, name=n, founded=f); E("based_in","RecordLabel",k,"City",c)

# Bands
bands = [("b1","The Paper Lanterns",2006,"c3",["g1"],"rl3"),("b2","Velvet Static",1998,"c4",["g8","g1"],"rl6"),
         ("b3","Northern Arcade",2010,"c1",["g2","g6"],"rl1"),("b4","Hollow Pines",2013,"c5",["g4"],"rl4"),
         ("b5","Glass Harbour",1989,"c3",["g3"],"rl3"),("b6","Saltwater Choir",2015,"c6",["g1","g4"],"rl5"),
         ("b7","Kite Engine",2018,"c8",["g6"],"rl2"),("b8","The Quiet Marrows",2001,"c7",["g3","g8"],"rl1")]
for k,n,f,c,gs,rl in bands:
    N("Band", k, name=n, formed=f); E("based_in","Band",k,"City",c)
    for g in gs: E("plays_genre","Band",k,"Genre",g)
    E("signedTo","Band",k,"RecordLabel",rl)

# Artists: key, name, born (None = missing), country, instrument, birth city, band, label, genres
artists = [("ar1","Mara Lindqvist",1984,"Sweden","vocals","c1","b3","rl2",["g2"]),
           ("ar2","Jonas Ekberg",1982,"Sweden","synthesizer","c2","b3",None,[]),
           ("ar3","Liam Hartley",1979,"UK","guitar","c3","b1",None,[]),
           ("ar4","Priya Nandakumar",1987,"UK","drums","c3","b1",None,[]),
           ("ar5","Cole Whitaker",1971,"USA","guitar","c4","b2",None,[]),
           ("ar6","Dana Reyes",1974,"USA","bass","c4","b2",None,[]),
           ("ar7","Elodie Marchand",1990,"Canada","vocals","c5","b4","rl4",["g4"]),
           ("ar8","Tom Beaulieu",1988,"Canada","banjo","c5","b4",None,[]),
           ("ar9","Ian Crowe",1966,"UK","vocals","c3","b5",None,[]),
           ("ar10","Sarah Vance",1968,"UK","bass","c3","b5",None,[]),
           ("ar11","Ruby Okafor",1995,"Australia","vocals","c6","b6",None,[]),
           ("ar12","Finn Maddox",1993,"Australia","guitar","c6","b6",None,[]),
           ("ar13","Katrin Vogel",1991,"Germany","synthesizer","c8","b7",None,[]),
           ("ar14","Einar Sigurdsson",1977,"Iceland","guitar","c7","b8",None,[]),
           ("ar15","Lena Holm",1986,"Sweden","vocals","c2",None,"rl1",["g2"]),
           ("ar16","Lena Holmberg",1979,"Sweden","piano","c1",None,"rl1",["g5"]),
           ("ar17","Marcus Dale",None,"USA","producer","c4",None,None,[]),
           ("ar18","Yusuf Adeyemi",1992,"UK","vocals","c3",None,"rl3",["g7"]),
           ("ar19","Nadia Petrova",1984,"Germany","producer","c8",None,None,["g6"]),
           ("ar20","Hugo Lindqvist",1958,"Sweden","producer","c2",None,None,[])]
for k,n,b,co,ins,c,band,rl,gs in artists:
    props = {"name": n, "country": co, "instrument": ins}
    if b is not None: props["born"] = b
    N("Artist", k, **props); E("born_in","Artist",k,"City",c)
    if band: E("member_of","Artist",k,"Band",band)
    if rl: E("signedTo","Artist",k,"RecordLabel",rl)
    for g in gs: E("plays_genre","Artist",k,"Genre",g)

# Albums: key, name, year, sales, rating (None = missing), genre, performer (label,key), record label, producer
albums = [("al1","Harbour Lights",2012,120000,7.8,"synthpop",("Band","b3"),"rl1","ar20"),
          ("al2","Northern Lights",2016,210000,8.4,"synthpop",("Band","b3"),"rl1","ar19"),
          ("al3","Glass Cities",2021,95000,7.1,"synthpop",("Band","b3"),"rl1","ar19"),
          ("al4","Paper Moons",2008,150000,8.0,"indie rock",("Band","b1"),"rl3","ar17"),
          ("al5","Small Fires",2014,180000,8.6,"indie rock",("Band","b1"),"rl3","ar17"),
          ("al6","Dust & Radio",1999,300000,8.9,"shoegaze",("Band","b2"),"rl3","ar17"),
          ("al7","Feedback Summer",2003,260000,8.2,"shoegaze",("Band","b2"),"rl3",None),
          ("al8","Low Orbit",2019,90000,7.4,"shoegaze",("Band","b2"),"rl6","ar17"),
          ("al9","Cedar Hymns",2015,70000,8.1,"folk",("Band","b4"),"rl4","ar8"),
          ("al10","Winter Ferry",2019,85000,8.5,"folk",("Band","b4"),"rl4",None),
          ("al11","Concrete Bloom",1991,400000,9.1,"post-punk",("Band","b5"),"rl3","ar20"),
          ("al12","Signal Fade",1996,300000,7.9,"post-punk",("Band","b5"),"rl3",None),
          ("al13","Tidewater",2017,110000,7.6,"indie rock",("Band","b6"),"rl5",None),
          ("al14","Salt & Sun",2022,60000,None,"folk",("Band","b6"),"rl5",None),
          ("al15","Kinetic",2020,45000,7.0,"electronic",("Band","b7"),"rl2","ar19"),
          ("al16","Grey Meridian",2004,130000,8.3,"post-punk",("Band","b8"),"rl1","ar20"),
          ("al17","Quiet Rooms",2018,140000,8.0,"synthpop",("Artist","ar1"),"rl2","ar19"),
          ("al18","Afterglow Letters",2020,65000,8.7,"folk",("Artist","ar7"),"rl4",None),
          ("al19","Blue Hour Sessions",2010,30000,8.8,"jazz",("Artist","ar16"),"rl1",None),
          ("al20","Paper Hearts",2013,75000,6.9,"synthpop",("Artist","ar15"),"rl1",None),
          ("al21","Concrete Dreams",2019,160000,8.0,"hip hop",("Artist","ar18"),"rl3","ar17"),
          ("al22","Cinder Youth",2009,50000,6.5,"post-punk",("Band","b5"),"rl3",None)]
for k,n,y,s,r,g,(pl,pk),rl,prod in albums:
    props = {"name": n, "year": y, "sales": s, "genre": g}
    if r is not None: props["rating"] = r
    N("Album", k, **props)
    E("performed_by","Album",k,pl,pk); E("RELEASED_ON","Album",k,"RecordLabel",rl)
    if prod: E("produced_by","Album",k,"Artist",prod)

# Tracks: key, name, duration_seconds, album, writers
tracks = [("t1","Northern Lights",254,"al2",["ar1","ar2"]),("t2","Cold Neon",231,"al2",["ar2"]),("t3","Ferry Home",288,"al2",["ar1"]),
          ("t4","Glass Cities",242,"al3",["ar1"]),("t5","Tram Lines",305,"al3",["ar2"]),("t6","Afterimage",219,"al3",["ar1","ar2"]),
          ("t7","Harbour Lights",267,"al1",["ar1"]),("t8","Small Hours",198,"al1",["ar2"]),
          ("t9","Paper Moons",212,"al4",["ar3"]),("t10","Ribbon",185,"al4",["ar3","ar4"]),
          ("t11","Small Fires",276,"al5",["ar3"]),("t12","Lamplighter",341,"al5",["ar4"]),("t13","Kettle Song",190,"al5",["ar3"]),
          ("t14","Dust & Radio",412,"al6",["ar5"]),("t15","Static Bloom",365,"al6",["ar5","ar6"]),
          ("t16","Feedback Summer",298,"al7",["ar6"]),
          ("t17","Low Orbit",412,"al8",["ar5"]),("t18","Satellite Heart",233,"al8",["ar6","ar17"]),
          ("t19","Cedar",201,"al9",["ar8"]),("t20","River Psalm",264,"al9",["ar7"]),
          ("t21","Winter Ferry",319,"al10",["ar7","ar8"]),("t22","Snowmelt",176,"al10",["ar7"]),
          ("t23","Concrete Bloom",226,"al11",["ar9","ar10"]),("t24","Factory Girls",189,"al11",["ar9"]),
          ("t25","Signal Fade",247,"al12",["ar10"]),
          ("t26","Tidewater",280,"al13",["ar11"]),("t27","Undertow",255,"al13",["ar12"]),
          ("t28","Quiet Rooms",238,"al17",["ar1"]),("t29","Glasshouse",260,"al17",["ar1","ar19"]),
          ("t30","Afterglow",272,"al18",["ar7"]),("t31","Blue Hour",395,"al19",["ar16"]),
          ("t32","Concrete Dreams",203,"al21",["ar18"]),("t33","Moss Side Nights",248,"al21",["ar18","ar4"]),
          ("t34","Kinetic",356,"al15",["ar13","ar19"]),("t35","Meridian",310,"al16",["ar14"]),
          ("t36","Salt & Sun",224,"al14",["ar11","ar12"]),("t37","Paper Hearts",209,"al20",["ar15"]),
          ("t38","Cinder Youth",230,"al22",["ar9"])]
for k,n,d,al,ws in tracks:
    N("Track", k, name=n, duration_seconds=d)
    E("APPEARS_ON","Track",k,"Album",al)
    for w in ws: E("written_by","Track",k,"Artist",w)

# Awards
awards = [("aw1","Aurora Music Prize",2009),("aw2","Golden Reel Award",1985),("aw3","Lantern Critics Prize",2012),
          ("aw4","Breakthrough Artist of the Year",2000)]
for k,n,e in awards: N("Award", k, name=n, established=e)
for fl,fk,aw in [("Album","al2","aw1"),("Album","al19","aw1"),("Album","al11","aw2"),("Album","al6","aw2"),("Album","al5","aw2"),
                 ("Album","al10","aw3"),("Album","al18","aw3"),("Artist","ar18","aw4"),("Band","b6","aw4"),("Artist","ar1","aw4")]:
    E("won",fl,fk,"Award",aw)

# Venues
venues = [("v1","The Foundry",1200,"c3"),("v2","Kolhuset",2500,"c1"),("v3","Red River Hall",800,"c4"),("v4","Harbourfront Arena",12000,"c6")]
for k,n,cap,c in venues:
    N("Venue", k, name=n, capacity=cap); E("located_in","Venue",k,"City",c)
for fl,fk,v in [("Band","b1","v1"),("Band","b5","v1"),("Band","b3","v2"),("Band","b8","v2"),("Band","b2","v3"),
                ("Band","b6","v4"),("Band","b3","v4"),("Artist","ar1","v2"),("Artist","ar18","v1")]:
    E("PLAYED_AT",fl,fk,"Venue",v)

# Influences
for a,b in [("b3","b5"),("b1","b5"),("b6","b1"),("b8","b2"),("b7","b3")]:
    E("influenced_by","Band",a,"Band",b)

with open("graph.jsonl","w") as f:
    for x in nodes + edges: f.write(json.dumps(x, ensure_ascii=False) + "\n")
print(len(nodes), "nodes", len(edges), "edges")
